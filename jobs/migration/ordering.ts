import type { Severity } from '../../shared/schemas/analysis.js';
import type { OrderingIssue, OrderingIssueKind } from './schemas.js';

/**
 * The order of the migrations as their ids tell it. Migration tools apply
 * pending migrations sorted by id (or version), so ids that repeat, go
 * backwards, skip numbers or mix naming schemes apply in an order nobody
 * meant, or not at all.
 */

export type NamingScheme = 'timestamp' | 'epoch' | 'flyway' | 'sequential' | 'none';

interface Versioned {
  id: string;
  scheme: NamingScheme;
  /** Comparable version; null when the id carries none. */
  version: bigint | null;
  /** The plain counter (0001, V12) where gaps mean something; null for timestamps and dotted versions. */
  counter: bigint | null;
}

/** The naming scheme of one id and the version it carries. */
export function versionOf(id: string): Versioned {
  const base = id.replace(/^.*\//, '');
  const flyway = /^[VvUu](\d+(?:[._]\d+)*)__/.exec(base);
  if (flyway) {
    // V1_1 sorts after V1 and before V2: compare part by part, four parts of six digits.
    const parts = flyway[1]!.split(/[._]/).slice(0, 4);
    const version = BigInt(
      [...parts, '0', '0', '0']
        .slice(0, 4)
        .map((p) => p.slice(-6).padStart(6, '0'))
        .join(''),
    );
    return { id, scheme: 'flyway', version, counter: parts.length === 1 ? BigInt(parts[0]!) : null };
  }
  const digits = /^(\d+)(?=$|[_\-.])/.exec(base)?.[1];
  if (!digits) return { id, scheme: 'none', version: null, counter: null };
  // 14 digits from the 1900s onwards: YYYYMMDDHHMMSS (knex, Rails, golang-migrate's default); 10 or 13 from 2001 on:
  // Unix seconds or milliseconds.
  if (
    digits.length === 14 &&
    /^(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])([01]\d|2[0-3])[0-5]\d[0-5]\d$/.test(digits)
  )
    return { id, scheme: 'timestamp', version: BigInt(digits), counter: null };
  if ((digits.length === 10 || digits.length === 13) && /^1\d+/.test(digits))
    return { id, scheme: 'epoch', version: BigInt(digits.length === 13 ? digits : `${digits}000`), counter: null };
  return { id, scheme: 'sequential', version: BigInt(digits), counter: BigInt(digits) };
}

const SEVERITY: Record<OrderingIssueKind, Severity> = {
  duplicateId: 'warning',
  duplicateVersion: 'warning',
  outOfOrder: 'warning',
  gap: 'note',
  mixedNaming: 'note',
  unversioned: 'note',
};

export function orderingIssues(ids: string[]): OrderingIssue[] {
  const issues: Array<Omit<OrderingIssue, 'severity'>> = [];
  const seen = new Map<string, number>();
  for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
  for (const [id, n] of seen)
    if (n > 1)
      issues.push({
        kind: 'duplicateId',
        ids: [id],
        message: `${id} appears ${n} times: a tool applies it once and skips the rest, or refuses the batch`,
      });

  const versions = [...new Set(ids)].map(versionOf);
  const unversioned = versions.filter((v) => v.version === null);
  if (unversioned.length > 0 && unversioned.length < versions.length) {
    issues.push({
      kind: 'unversioned',
      ids: unversioned.map((v) => v.id),
      message:
        `${unversioned.length} id(s) carry no version number; tools sort them by name, after or before the ` +
        `numbered ones`,
    });
  }
  const schemes = [...new Set(versions.filter((v) => v.version !== null).map((v) => v.scheme))];
  if (schemes.length > 1) {
    issues.push({
      kind: 'mixedNaming',
      ids: versions.filter((v) => v.version !== null).map((v) => v.id),
      message:
        `ids mix naming schemes (${schemes.join(', ')}): sorted together, they do not apply in the order ` + `written`,
    });
  }
  const numbered = versions.filter((v): v is Versioned & { version: bigint } => v.version !== null);
  const byVersion = new Map<bigint, string[]>();
  for (const v of numbered) byVersion.set(v.version, [...(byVersion.get(v.version) ?? []), v.id]);
  for (const [, same] of byVersion)
    if (same.length > 1)
      issues.push({
        kind: 'duplicateVersion',
        ids: same,
        message: `${same.join(' and ')} carry the same version: tools that key on the version apply only one of them`,
      });
  for (let i = 1; i < numbered.length; i++) {
    const [prev, cur] = [numbered[i - 1]!, numbered[i]!];
    if (cur.version < prev.version && cur.scheme === prev.scheme) {
      issues.push({
        kind: 'outOfOrder',
        ids: [prev.id, cur.id],
        message:
          `${cur.id} is listed after ${prev.id} but sorts before it: a tool applies it first (or, if ` +
          `${prev.id} is already applied, skips it or refuses)`,
      });
    }
  }
  // Gaps only mean something for plain counters (0001, 0002, …); timestamps skip by nature.
  for (const scheme of ['sequential', 'flyway'] as const) {
    const counted = numbered
      .filter((v) => v.scheme === scheme && v.counter !== null)
      .sort((a, b) => (a.counter! < b.counter! ? -1 : a.counter! > b.counter! ? 1 : 0));
    for (let i = 1; i < counted.length; i++) {
      const [a, b] = [counted[i - 1]!, counted[i]!];
      if (b.counter! - a.counter! > 1n) {
        const [from, to] = [a.counter! + 1n, b.counter! - 1n];
        issues.push({
          kind: 'gap',
          ids: [a.id, b.id],
          message:
            `no migration numbered ${from === to ? `${from}` : `${from} to ${to}`} between ${a.id} and ` +
            `${b.id}: a lost or unmerged migration?`,
        });
      }
    }
  }
  return issues.map((issue) => ({ ...issue, severity: SEVERITY[issue.kind] }));
}
