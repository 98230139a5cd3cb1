import { minimatch } from 'minimatch';
import type { ConnectorScope, StoredScope } from './connector-schemas.js';
import { checkSecretRef } from '../../shared/secrets.js';
import {
  capabilityMatches,
  decide,
  PREFLIGHT_RULES,
  PREFLIGHT_SEVERITY,
  type PreflightCheck,
  type PreflightStatus,
} from '../policy/index.js';

/**
 * The bridge registry's pure rules: which resources a scope covers, what a
 * connector needs before it can be used, how a preflight's failures add up
 * to a status, how well a connector matches a request.
 */

export type Scope = StoredScope;

export interface ConnectorShape {
  connectorId: string;
  caps: string[];
  credential: { type: string; tokenRef: string } | null;
  scopes: Scope[];
  status: string;
}

/** One reason a request is refused, with the JSON pointer of the field it is about. */
export interface FieldProblem {
  path: string;
  message: string;
  problem?: string;
}

// Braces, extglobs and negation are off: a brace range can expand to millions of patterns, an extglob to a slow regex.
const GLOB = { dot: true, nobrace: true, noext: true, nonegate: true, nocomment: true } as const;
const MAGIC = /[*?[\]]/;
const MAX_WILDCARDS = 10;
const MAX_SEGMENTS = 32;

/**
 * Why a resource name or pattern is refused, or null. Empty, `.` and `..`
 * segments are refused: globs treat them specially, so coverage could not
 * be decided segment by segment.
 */
export function resourcePatternProblem(pattern: string): string | null {
  const segments = pattern.split('/');
  if (segments.length > MAX_SEGMENTS) return `has more than ${MAX_SEGMENTS} segments`;
  if (segments.some((s) => s === '')) return 'has an empty segment (a leading, trailing or double /)';
  if (segments.some((s) => s === '.' || s === '..')) return 'has a . or .. segment';
  if ((pattern.match(/[*?]/g) ?? []).length > MAX_WILDCARDS) return `has more than ${MAX_WILDCARDS} wildcards`;
  return null;
}

/** Whether every name `inner` (one segment, a name or a glob) matches is matched by `outer`. */
function segmentCovered(outer: string, inner: string): boolean {
  if (outer === inner) return true;
  if (!MAGIC.test(inner)) return minimatch(inner, outer, GLOB);
  // A glob segment is inside another only when that one is `*` (any one segment); anything finer is not decided here.
  return outer === '*' && inner !== '**';
}

/**
 * Whether `outer` covers `inner`: every resource `inner` matches, `outer`
 * matches too. For a plain name this is glob matching; for two globs it is
 * decided segment by segment (`**` in `outer` takes any run of segments,
 * globs included), and what cannot be shown to be inside is not: the answer
 * errs towards refusing.
 */
export function resourceCovers(outer: string, inner: string): boolean {
  const o = outer.split('/');
  const i = inner.split('/');
  const memo = new Map<number, boolean>();
  const at = (a: number, b: number): boolean => {
    const key = a * (i.length + 1) + b;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (a === o.length) result = b === i.length;
    // A trailing `**` after other segments takes at least one (minimatch: `repos/**` matches `repos/x`, not `repos`).
    else if (o[a] === '**' && a === o.length - 1 && a > 0) result = b < i.length;
    else if (o[a] === '**') result = at(a + 1, b) || (b < i.length && at(a, b + 1));
    else result = b < i.length && i[b] !== '**' && segmentCovered(o[a]!, i[b]!) && at(a + 1, b + 1);
    memo.set(key, result);
    return result;
  };
  return at(0, 0);
}

/** The scopes that allow `action` (and `resource`, when one is named). */
export function scopesCovering(scopes: Scope[], action: string, resource?: string | null): Scope[] {
  return scopes.filter(
    (s) =>
      s.actions.some((a) => capabilityMatches(a, action)) &&
      (resource == null || s.resources.some((r) => resourceCovers(r, resource))),
  );
}

/**
 * Whether a session allows `action` on `resource`: the action is one of its own, and its resources (when it narrows
 * them) cover the resource.
 */
export function sessionCovers(
  session: { actions: string[]; resources: string[] | null },
  action: string,
  resource?: string | null,
): boolean {
  if (!session.actions.includes(action)) return false;
  return resource == null || session.resources === null || session.resources.some((r) => resourceCovers(r, resource));
}

/**
 * Scopes as stored: a scope without resources covers any (`**`); a connector registered without scopes gets one
 * covering its caps on any resource.
 */
export function normalizeScopes(scopes: ConnectorScope[] | undefined, caps: string[]): Scope[] {
  if (!scopes) return [{ actions: [...caps], resources: ['**'], tokenRefs: [] }];
  return scopes.map((s) => ({
    actions: [...new Set(s.actions)],
    resources: s.resources ?? ['**'],
    tokenRefs: s.tokenRefs ?? [],
  }));
}

/**
 * Every problem of a connector's credential and scopes, each with its field: references out of bounds, patterns
 * refused, scope actions no cap has.
 */
export function connectorProblems(
  c: { kind: string; caps: string[]; credential?: { tokenRef: string } | null; scopes: Scope[] },
  secretPrefix: string,
  allowEnv = false,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const ref = (value: string, path: string) => {
    const check = checkSecretRef(value, { prefix: secretPrefix, allowEnv });
    if (!check.ok) problems.push({ path, message: check.message, problem: check.problem });
  };
  if (c.credential) ref(c.credential.tokenRef, '/credential/tokenRef');
  else if (c.kind === 'oauth' || c.kind === 'basicRef')
    problems.push({ path: '/credential', message: `a ${c.kind} connector needs credential.tokenRef (cred:NAME)` });
  c.scopes.forEach((s, n) => {
    s.tokenRefs.forEach((t, k) => ref(t, `/scopes/${n}/tokenRefs/${k}`));
    s.actions.forEach((a, k) => {
      if (!c.caps.some((cap) => capabilityMatches(a, cap)))
        problems.push({ path: `/scopes/${n}/actions/${k}`, message: `${a} matches none of the connector's caps` });
    });
    s.resources.forEach((r, k) => {
      const problem = resourcePatternProblem(r);
      if (problem) problems.push({ path: `/scopes/${n}/resources/${k}`, message: `resource pattern ${problem}` });
    });
  });
  return problems;
}

/**
 * The references an action uses: the credential's and those of the scopes that cover it (of every scope when none
 * does).
 */
export function refsFor(c: Pick<ConnectorShape, 'credential' | 'scopes'>, covering?: Scope[]): string[] {
  const scopes = covering && covering.length > 0 ? covering : c.scopes;
  return [...new Set([...(c.credential ? [c.credential.tokenRef] : []), ...scopes.flatMap((s) => s.tokenRefs)])];
}

export interface SecretState {
  ref: string;
  /** The credential name, or the environment variable (`AWP_SECRET_X`) for operators; '' when not shown. */
  variable: string;
  set: boolean;
  /** Why the reference cannot be resolved at all (the prefix changed since it was stored). */
  refused?: string;
}

/** What an unresolvable reference is told as: a vault one is unavailable in the account (missing or not, alike). */
export function unsetMessage(ref: string): string {
  return ref.startsWith('cred:') ? `${ref} is not available in this account` : `${ref} is not set on this server`;
}

/** Capability → allowed by the bridge policy: the listing's capability flags. */
export function capabilityFlags(caps: string[]): Record<string, boolean> {
  return Object.fromEntries(caps.map((cap) => [cap, decide('bridge', cap).allowed]));
}

/**
 * Whether a preflight of this connector can pass for some action: it is
 * active, some capability is allowed and every reference it holds is set.
 * `notReady` says what stands in the way, naming variables, never values.
 */
export function readiness(
  c: ConnectorShape,
  secrets: SecretState[],
): { preflightReady: boolean; notReady: Array<{ check: PreflightCheck; message: string }> } {
  const notReady: Array<{ check: PreflightCheck; message: string }> = [];
  if (c.status === 'disabled') notReady.push({ check: 'status', message: `connector ${c.connectorId} is disabled` });
  if (!c.caps.some((cap) => decide('bridge', cap).allowed))
    notReady.push({ check: 'policy', message: 'the bridge policy allows none of its caps' });
  for (const s of secrets) if (!s.set) notReady.push({ check: 'secret', message: s.refused ?? unsetMessage(s.ref) });
  return { preflightReady: notReady.length === 0, notReady };
}

/** The status a preflight's failed checks add up to: the most severe one, or `ready` when none failed. */
export function preflightStatus(failed: PreflightCheck[]): PreflightStatus {
  const statuses = new Set(failed.map((f) => PREFLIGHT_RULES.find((c) => c.check === f)!.failsWith));
  return PREFLIGHT_SEVERITY.find((s) => statuses.has(s)) ?? 'ready';
}

export const MATCH_CRITERIA = ['capability', 'tokenRef', 'scope', 'policy', 'status', 'secrets'] as const;

export interface MatchReason {
  criterion: (typeof MATCH_CRITERIA)[number];
  met: boolean;
  weight: number;
  detail: string;
}

const WEIGHTS = { scope: 0.35, policy: 0.2, status: 0.2, secrets: 0.25 } as const;

/**
 * How well a connector that has the capability fits a request, 0..1, and
 * why: a scope covering the capability (and resource), the policy allowing
 * it, the connector active, its references set. A `tokenRef` the request
 * names must be the credential's or a covering scope's, else it is no match.
 */
export function scoreMatch(
  c: ConnectorShape,
  want: { capability: string; resource?: string; tokenRef?: string },
  secretsOf: (refs: string[]) => SecretState[],
): { score: number; reasons: MatchReason[] } | null {
  if (!c.caps.includes(want.capability)) return null;
  const covering = scopesCovering(c.scopes, want.capability, want.resource);
  const reasons: MatchReason[] = [{ criterion: 'capability', met: true, weight: 0, detail: `has ${want.capability}` }];
  if (want.tokenRef) {
    const used = [...(c.credential ? [c.credential.tokenRef] : []), ...covering.flatMap((s) => s.tokenRefs)];
    if (!used.includes(want.tokenRef)) return null;
    reasons.push({ criterion: 'tokenRef', met: true, weight: 0, detail: `uses ${want.tokenRef}` });
  }
  const policy = decide('bridge', want.capability);
  const unset = secretsOf(refsFor(c, covering))
    .filter((s) => !s.set)
    .map((s) => s.ref);
  const where = want.resource ? ` on ${want.resource}` : '';
  reasons.push(
    {
      criterion: 'scope',
      met: covering.length > 0,
      weight: WEIGHTS.scope,
      detail:
        covering.length > 0
          ? `${covering.length} scope(s) cover ${want.capability}${where}`
          : `no scope covers ${want.capability}${where}`,
    },
    { criterion: 'policy', met: policy.allowed, weight: WEIGHTS.policy, detail: `${policy.rule.id}: ${policy.reason}` },
    { criterion: 'status', met: c.status === 'active', weight: WEIGHTS.status, detail: `status ${c.status}` },
    {
      criterion: 'secrets',
      met: unset.length === 0,
      weight: WEIGHTS.secrets,
      detail: unset.length === 0 ? 'every reference is set' : `not set: ${unset.join(', ')}`,
    },
  );
  const score = reasons.reduce((sum, r) => sum + (r.met ? r.weight : 0), 0);
  return { score: Math.round(score * 100) / 100, reasons };
}
