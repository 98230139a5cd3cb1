import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { SECTION_KINDS, PACK_PROBLEMS } from './pack-schemas.js';
import { cites } from './logic.js';

/**
 * Proof packs, without I/O: what a pack holds (six sections built from a
 * run's steps, its proof card, its receipts and its audit entries), how it is sealed, and how
 * a sealed pack is checked again from its content alone. Every hash is
 * SHA-256 (hex) over RFC 8785 canonical JSON, so anyone can recompute it.
 */

export type SectionKind = (typeof SECTION_KINDS)[number];
export type Section = { kind: SectionKind } & Record<string, unknown>;

export const sha256 = (value: unknown): string =>
  createHash('sha256').update(canonicalize(value)!, 'utf8').digest('hex');

/**
 * The pack sealed automatically when a run with receipts finishes shares the run's id (`run_X` → `pp_X`), so the run's
 * answer can name it before it exists.
 */
export function packIdForRun(runId: string): string {
  return `pp_${runId.slice(runId.indexOf('_') + 1)}`;
}

export interface PackStep {
  segment: number;
  idx: number;
  domain: string;
  status: string;
  output: Record<string, unknown> | null;
  evidence: unknown[] | null;
  extra: { rejected?: Array<{ option: string; reason: string }> } | null;
}

export interface PackInput {
  run: { id: string; route: string[]; status: string; extensions: unknown[] };
  steps: PackStep[];
  /** The run's latest proof card (null when it never rested with one). */
  card: Record<string, unknown> | null;
  receipts: Array<{ receiptId: string; amount: { amount: number; currency: string } } & Record<string, unknown>>;
  /** The audit entries about the run (approvals, denials), oldest first; packs sealed before it lack the section. */
  audit: Array<{ id: string; action: string } & Record<string, unknown>>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const MAX_SNAPSHOTS = 500;

/** Every object in a step output that names an http(s) `url`: the records the run read from its sources. */
function sourceRecords(value: unknown, out: Obj[] = []): Obj[] {
  if (out.length >= MAX_SNAPSHOTS) return out;
  if (Array.isArray(value)) for (const v of value) sourceRecords(v, out);
  else if (isObj(value)) {
    if (typeof value.url === 'string' && /^https?:\/\//i.test(value.url)) out.push(value);
    else for (const v of Object.values(value)) sourceRecords(v, out);
  }
  return out;
}

/** The six sections of a run's pack. */
export function buildSections({ run, steps, card, receipts, audit }: PackInput): Section[] {
  const completed = steps.filter((s) => s.status === 'completed');
  const items = completed.flatMap((s) =>
    (s.evidence ?? []).filter(isObj).map((e) => {
      const item = {
        domain: s.domain,
        segment: s.segment,
        claim: String(e.claim ?? ''),
        source: typeof e.source === 'string' ? e.source : null,
        sourceBound: e.sourceBound === true,
        ...(Array.isArray(e.contradicts) ? { contradicts: e.contradicts } : {}),
      };
      return { ...item, sha256: sha256(item) };
    }),
  );

  const snapshots = new Map<string, Obj>();
  for (const s of completed) {
    for (const record of sourceRecords(s.output)) {
      const hash = sha256(record);
      const recordId = [record.candidateId, record.itemId, record.id].find((x) => typeof x === 'string') ?? null;
      if (!snapshots.has(hash))
        snapshots.set(hash, { url: record.url, recordId, domain: s.domain, record, sha256: hash });
    }
  }

  const contradictions = [
    ...items
      .filter((i) => i.contradicts && i.contradicts.length > 0)
      .map((i) => ({ domain: i.domain, detail: i.claim, between: i.contradicts })),
    ...completed.flatMap((s) =>
      (Array.isArray(s.output?.contradictions) ? s.output.contradictions : []).filter(isObj).map((c) => ({
        domain: s.domain,
        detail: String(c.detail ?? ''),
        between: Array.isArray(c.between) ? c.between : [],
        ...(typeof c.kind === 'string' ? { contradictionKind: c.kind } : {}),
      })),
    ),
  ];

  // As the proof card decides: the latest completed step of each domain; the first selection in route order is the one
  // taken.
  const latest = [...new Map(completed.map((s) => [s.domain, s])).values()];
  const rejectedPaths = latest.flatMap((s) =>
    (s.extra?.rejected ?? []).map((r) => ({ domain: s.domain, option: r.option, reason: r.reason })),
  );
  const totals = new Map<string, number>();
  for (const r of receipts)
    totals.set(r.amount.currency, Number(((totals.get(r.amount.currency) ?? 0) + r.amount.amount).toFixed(6)));

  return [
    {
      kind: 'evidenceMap',
      itemCount: items.length,
      allSourceBound: items.length > 0 && items.every((i) => i.sourceBound),
      items,
    },
    { kind: 'sourceSnapshots', count: snapshots.size, snapshots: [...snapshots.values()] },
    { kind: 'contradictions', count: contradictions.length, items: contradictions },
    {
      kind: 'decisionLog',
      selectedPath: run.route,
      status: run.status,
      selectedOption: latest.map((s) => s.output?.selected).find((x) => x !== undefined && x !== null) ?? null,
      rejectedCount: rejectedPaths.length,
      rejectedPaths,
      extensions: run.extensions,
      proofCard: card
        ? {
            cardId: card.cardId,
            cite: card.cite,
            citeRef: card.citeRef,
            evidenceStatus: card.evidenceStatus,
            confidence: card.confidence,
            recommendedRestraint: card.recommendedRestraint,
          }
        : null,
    },
    {
      kind: 'receipts',
      receiptId: receipts[0]?.receiptId ?? null,
      count: receipts.length,
      totals: [...totals].map(([currency, amount]) => ({ amount, currency })),
      receipts,
    },
    { kind: 'audit', count: audit.length, denied: audit.filter((e) => e.outcome === 'denied').length, entries: audit },
  ];
}

export interface PackHeader {
  packId: string;
  status: 'sealed';
  cite: string;
  runId: string;
  sealedAt: string;
}

export const headerOf = (packId: string, runId: string, sealedAt: string): PackHeader => ({
  packId,
  status: 'sealed',
  cite: cites.proofPack(packId),
  runId,
  sealedAt,
});

/** The root hash binds the header and every section's hash; the service's signature is over this string. */
export function rootHashOf(header: Obj, sectionHashes: Array<{ kind: unknown; sha256: unknown }>): string {
  return sha256({ header, sectionHashes });
}

/** Section hashes and the root hash of a pack about to be signed. */
export function sealHashes(header: PackHeader, sections: Section[]) {
  const sectionHashes = sections.map((s) => ({ kind: s.kind, sha256: sha256(s) }));
  return { sectionHashes, rootHash: rootHashOf({ ...header }, sectionHashes) };
}

/** A part of a pack that does not check out, and why; `section` is a section kind, `header` or `seal`. */
export interface PackProblem {
  section: string;
  problem: (typeof PACK_PROBLEMS)[number];
  detail: string;
}

/**
 * Recomputes every hash of a submitted pack from its content: each
 * evidence item and source snapshot, each section, the root. Says which
 * section does not match; the signature is checked by the caller (it needs
 * the published key).
 */
export function checkPackHashes(pack: Obj): { problems: PackProblem[]; rootHash: string } {
  const problems: PackProblem[] = [];
  const seal = isObj(pack.seal) ? pack.seal : {};
  const sections = Array.isArray(pack.sections) ? pack.sections : [];
  const listed = Array.isArray(seal.sectionHashes) ? (seal.sectionHashes as unknown[]).filter(isObj) : [];
  if (listed.length !== sections.length)
    problems.push({
      section: 'seal',
      problem: 'sectionMissing',
      detail: `${sections.length} section(s), ${listed.length} section hash(es)`,
    });
  sections.forEach((section, i) => {
    const kind = isObj(section) && typeof section.kind === 'string' ? section.kind : `#${i}`;
    if (!isObj(section))
      return problems.push({ section: kind, problem: 'malformed', detail: 'a section is not an object' });
    const entry = listed[i];
    if (entry && entry.kind !== section.kind)
      problems.push({
        section: kind,
        problem: 'kindMismatch',
        detail: `the seal lists ${String(entry.kind)} at position ${i}`,
      });
    if (entry && entry.sha256 !== sha256(section))
      problems.push({ section: kind, problem: 'hashMismatch', detail: 'its SHA-256 differs from the one in the seal' });
    const nested = kind === 'evidenceMap' ? section.items : kind === 'sourceSnapshots' ? section.snapshots : null;
    if (Array.isArray(nested)) {
      nested.filter(isObj).forEach((item, j) => {
        const { sha256: claimed, ...content } = item;
        const expected = kind === 'sourceSnapshots' ? sha256(content.record) : sha256(content);
        if (claimed !== expected)
          problems.push({
            section: kind,
            problem: 'itemHashMismatch',
            detail: `${kind === 'evidenceMap' ? 'item' : 'snapshot'} ${j} does not match its sha256`,
          });
      });
    }
    return undefined;
  });
  const header = {
    packId: pack.packId,
    status: pack.status,
    cite: pack.cite,
    runId: pack.runId,
    sealedAt: pack.sealedAt,
  };
  const rootHash = rootHashOf(
    header,
    listed.map((e) => ({ kind: e.kind, sha256: e.sha256 })),
  );
  if (rootHash !== seal.rootHash)
    problems.push({
      section: 'seal',
      problem: 'rootHashMismatch',
      detail: 'the root hash over the header and the section hashes differs from seal.rootHash',
    });
  return { problems, rootHash };
}
