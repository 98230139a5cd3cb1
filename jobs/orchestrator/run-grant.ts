import type { Deps } from '../../shared/deps.js';
import { runGrantRow } from '../../shared/db/grants.js';
import { AppError, notFound } from '../../shared/errors.js';
import { missingScopes } from '../../shared/auth/scopes.js';
import { effectiveScopes, type Principal, type Scope } from '../../shared/schemas/auth.js';
import { engineHooks } from '../module-registry.js';

/**
 * Every effect on the world outside the account's own records, with the
 * scopes it needs. A route, a tool, a run's step, a schedule's or a rule's
 * run and a proxy mission all reach an effect through `requireEffect` (or
 * `requireRunEffect` for a run), so no path acts beyond the grant it holds.
 * A new effect is added here, with its scopes, and checked where it acts.
 */
export const EFFECTS = {
  'pay.settle': { scopes: ['pay:write'], what: 'settling a payment' },
  'delivery.deploy': {
    scopes: ['delivery:write', 'bridge:write'],
    what: 'a live deploy through the CI connector',
  },
  'bridge.action': { scopes: ['bridge:write'], what: 'a connector call' },
  'bridge.portal': { scopes: ['bridge:write'], what: 'a portal action' },
  'channels.message': { scopes: ['channels:write'], what: 'a message on a channel thread' },
} as const satisfies Record<string, { scopes: readonly Scope[]; what: string }>;
export type Effect = keyof typeof EFFECTS;

const RUN_ACTOR = /^run:/;

function refusal(effect: Effect, missing: string[], holder: string): AppError {
  const { what } = EFFECTS[effect];
  const scope = `scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`;
  const message = `${what} needs ${scope}, which ${holder} lacks; nothing was done`;
  return new AppError('forbidden', message, { effect, missingScopes: missing });
}

/**
 * 403 naming each missing scope unless `principal` holds what `effect` needs:
 * the one check every effect passes, whoever asks (a token, a run's grant).
 */
export function requireEffect(principal: Principal, effect: Effect, holder?: string): void {
  const missing = missingScopes(principal, EFFECTS[effect].scopes);
  if (missing.length === 0) return;
  const runId = RUN_ACTOR.test(principal.tokenId) ? principal.tokenId.slice(4) : null;
  throw refusal(effect, missing, holder ?? (runId ? `the grant of run ${runId}` : 'this token'));
}

export interface RunGrant {
  principal: Principal;
  /** Why the grant is what it is, for a refusal: whose scopes, and what narrowed them. */
  holder: string;
}

/**
 * The principal a run acts as: the scopes it was submitted with, within its
 * submitter's CURRENT role (a demoted member's run loses what the role
 * lost; a disabled or removed member's run holds nothing). A run from before
 * grants were recorded (null grant_scopes) holds nothing either: its effects
 * are refused, never guessed; resubmitting it records a grant.
 */
export async function runGrant(deps: Pick<Deps, 'db'>, accountId: string, runId: string): Promise<RunGrant> {
  const row = await runGrantRow(deps.db, accountId, runId);
  if (!row) throw notFound(`Run ${runId}`);
  const base = { accountId, tokenId: `run:${runId}`, plan: 'team' as const, activated: true };
  if (row.grant_scopes === null) {
    const holder = `run ${runId}, submitted before grants were recorded (resubmit it),`;
    return { principal: { ...base, scopes: [] }, holder };
  }
  if (!row.submitted_by) {
    return { principal: { ...base, scopes: row.grant_scopes }, holder: `the grant of run ${runId}` };
  }
  const member = await engineHooks().memberStanding(deps.db, accountId, row.submitted_by);
  if (!member || member.status !== 'active') {
    const state = member ? member.status : 'removed';
    const holder = `run ${runId}, whose submitter ${row.submitted_by} is ${state},`;
    return { principal: { ...base, memberId: row.submitted_by, scopes: [] }, holder };
  }
  const scopes = effectiveScopes(row.grant_scopes, member.role);
  const holder = `the grant of run ${runId} (member ${member.id}, role ${member.role})`;
  return { principal: { ...base, memberId: member.id, role: member.role, scopes }, holder };
}

/**
 * Checks a run's step may have `effect` before it acts, and answers the
 * principal the run acts as (for the checks that follow, such as a
 * connector's). A refusal is a 403, which fails the step with the missing
 * scope named; it is kept in the audit log as `run.effect` denied.
 */
export async function requireRunEffect(
  deps: Pick<Deps, 'db'>,
  run: { runId: string; accountId: string },
  effect: Effect,
): Promise<Principal> {
  const { principal, holder } = await runGrant(deps, run.accountId, run.runId);
  try {
    requireEffect(principal, effect, holder);
  } catch (err) {
    await engineHooks().audit(deps.db, {
      accountId: run.accountId,
      memberId: principal.memberId ?? null,
      tokenId: principal.tokenId,
      action: 'run.effect',
      resourceType: 'run',
      resourceId: run.runId,
      outcome: 'denied',
      details: { effect, ...((err as AppError).details as object) },
    });
    throw err;
  }
  return principal;
}
