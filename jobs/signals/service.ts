import type { Deps } from '../../shared/deps.js';
import {
  deleteRule,
  getRule,
  getSignal,
  insertMatch,
  insertRule,
  insertSignal,
  listRules,
  listSignals,
  lockActiveRules,
  matchesOfSignal,
  recentMatches,
  signalBySourceId,
  updateRule,
  type SignalMatchRow,
  type SignalRow,
  type SignalRuleRow,
} from './repository.js';
import { invalidPayload, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { creatorGrant, checkTarget } from '../automation/index.js';
import { admitMatch, checkCondition, conditionHolds, disallowedOperators } from './logic.js';
import { recordMatched, startMatch } from './pending.js';
import type { SignalIngest, SignalRuleCreate, SignalRuleUpdate } from './schemas.js';

/**
 * Ingests a signal: records it and its matches (`recordSignal`), then each
 * pending match asks for its run (`startMatch`). A signal whose source and
 * sourceId were seen before answers the first one, `duplicate: true`, and
 * starts nothing. A process that dies between the two leaves its matches
 * `pending`; the `signals.pending` sweep starts them (jobs/signals/pending.ts).
 */
export async function ingestSignal(
  deps: Deps,
  principal: Principal,
  body: SignalIngest,
): Promise<{ signal: SignalRow; duplicate: boolean; matches: SignalMatchRow[] }> {
  const accountId = principal.accountId;
  const recorded = await recordSignal(deps, accountId, body);
  if (!recorded) {
    const first = (await signalBySourceId(deps.db, accountId, body.source, body.sourceId))!;
    return { signal: first, duplicate: true, matches: await matchesOfSignal(deps.db, first.id) };
  }
  // A rule's run acts within the rule's recorded grant, not the grant of whoever posted the signal.
  const rules = new Map<string, SignalRuleRow | null>();
  const settled: SignalMatchRow[] = [];
  for (const match of recorded.matches)
    settled.push(match.outcome === 'pending' ? await startMatch(deps, match, recorded.signal, rules) : match);
  return { signal: recorded.signal, duplicate: false, matches: settled };
}

/**
 * The signal and the rules it matches (each held back by its dedup window or
 * rate limit, or `pending`), one transaction, under a lock of the type's
 * active rules so two signals count a window one after the other; a held
 * back match has its `signal.matched` event in it. Null for a duplicate.
 */
export async function recordSignal(
  deps: Deps,
  accountId: string,
  body: SignalIngest,
): Promise<{ signal: SignalRow; matches: SignalMatchRow[] } | null> {
  return deps.db.transaction(async (trx) => {
    const signal = await insertSignal(trx, {
      id: newId('sig'),
      account_id: accountId,
      type: body.type,
      subject: body.subject,
      value: body.value ?? null,
      source: body.source,
      source_id: body.sourceId,
      observed_at: body.observedAt ? new Date(body.observedAt) : new Date(),
    });
    if (!signal) return null;
    const matches: SignalMatchRow[] = [];
    for (const rule of await lockActiveRules(trx, accountId, body.type)) {
      if (!conditionHolds(rule.condition, signal)) continue;
      const admission = admitMatch(
        { dedupWindowSeconds: rule.dedup_window_seconds, maxRunsPerHour: rule.max_runs_per_hour },
        await recentMatches(trx, rule.id, signal.subject, rule.dedup_window_seconds),
      );
      const outcome = admission === 'start' ? 'pending' : admission;
      const match = await insertMatch(trx, {
        id: newId('smt'),
        account_id: accountId,
        signal_id: signal.id,
        rule_id: rule.id,
        subject: signal.subject,
        outcome,
        reason: admission === 'start' ? null : heldBackReason(admission, rule),
      });
      if (outcome !== 'pending') await recordMatched(trx, match);
      matches.push(match);
    }
    return { signal, matches };
  });
}

const heldBackReason = (admission: 'deduplicated' | 'rateLimited', rule: SignalRuleRow) =>
  admission === 'deduplicated'
    ? `a match for this subject counted within the last ${rule.dedup_window_seconds} s`
    : `the rule started ${rule.max_runs_per_hour} runs in the last hour`;

export async function findSignals(
  deps: Deps,
  principal: Principal,
  query: {
    type?: string;
    subject?: string;
    observedFrom?: string;
    observedTo?: string;
    limit?: number;
    cursor?: string;
  },
) {
  return listSignals(deps.db, principal.accountId, { ...query, limit: query.limit ?? 50 });
}

export async function fetchSignal(
  deps: Deps,
  principal: Principal,
  signalId: string,
): Promise<{ signal: SignalRow; matches: SignalMatchRow[] }> {
  const signal = await getSignal(deps.db, principal.accountId, signalId);
  if (!signal) throw notFound(`Signal ${signalId}`);
  return { signal, matches: await matchesOfSignal(deps.db, signal.id) };
}

/** A condition is checked when it is written: 400 naming each operator the language does not allow. */
function checkedCondition(condition: unknown): Record<string, unknown> | null {
  if (condition === undefined || condition === null) return null;
  const problems = checkCondition(condition);
  if (problems.length === 0) return condition as Record<string, unknown>;
  const operators = disallowedOperators(problems);
  const first = problems[0]!;
  throw invalidPayload(
    operators.length > 0
      ? `condition uses operator${operators.length > 1 ? 's' : ''} not allowed: ${operators.join(', ')}`
      : `condition${first.path} ${first.message}`,
    { operators, problems: problems.map((p) => ({ path: `/condition${p.path}`, message: p.message })) },
  );
}

export async function createRule(deps: Deps, principal: Principal, body: SignalRuleCreate): Promise<SignalRuleRow> {
  return insertRule(deps.db, {
    ...creatorGrant(principal, 'A signal rule'),
    id: newId('srl'),
    account_id: principal.accountId,
    name: body.name,
    signal_type: body.signalType,
    condition: checkedCondition(body.condition),
    target: checkTarget(body.target) as Record<string, unknown>,
    status: body.status ?? 'active',
    dedup_window_seconds: body.dedupWindowSeconds ?? 0,
    max_runs_per_hour: body.maxRunsPerHour ?? null,
  });
}

export async function fetchRule(deps: Deps, principal: Principal, ruleId: string): Promise<SignalRuleRow> {
  const rule = await getRule(deps.db, principal.accountId, ruleId);
  if (!rule) throw notFound(`Signal rule ${ruleId}`);
  return rule;
}

export async function findRules(
  deps: Deps,
  principal: Principal,
  query: { signalType?: string; limit?: number; cursor?: string },
) {
  return listRules(deps.db, principal.accountId, { ...query, limit: query.limit ?? 50 });
}

export async function updateRuleByClient(
  deps: Deps,
  principal: Principal,
  ruleId: string,
  body: SignalRuleUpdate,
): Promise<SignalRuleRow> {
  const patch: Parameters<typeof updateRule>[2] = {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.signalType !== undefined ? { signal_type: body.signalType } : {}),
    ...(body.condition !== undefined ? { condition: checkedCondition(body.condition) } : {}),
    // A new target is the updater's to answer for: the rule then acts within the updater's grant.
    ...(body.target !== undefined
      ? { target: checkTarget(body.target) as Record<string, unknown>, ...creatorGrant(principal, 'A signal rule') }
      : {}),
    ...(body.status !== undefined ? { status: body.status } : {}),
    ...(body.dedupWindowSeconds !== undefined ? { dedup_window_seconds: body.dedupWindowSeconds } : {}),
    ...(body.maxRunsPerHour !== undefined ? { max_runs_per_hour: body.maxRunsPerHour } : {}),
  };
  return deps.db.transaction(async (trx) => {
    if (!(await getRule(trx, principal.accountId, ruleId, true))) throw notFound(`Signal rule ${ruleId}`);
    return updateRule(trx, ruleId, patch);
  });
}

export async function removeRule(deps: Deps, principal: Principal, ruleId: string): Promise<void> {
  if (!(await deleteRule(deps.db, principal.accountId, ruleId))) throw notFound(`Signal rule ${ruleId}`);
}
