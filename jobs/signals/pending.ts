import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { startAutomatedRun, type RunTarget } from '../automation/index.js';
import { wakeDispatcher } from '../events/index.js';
import {
  claimStalePendingMatches,
  getMatch,
  getRule,
  getSignal,
  settleMatch,
  type SignalMatchRow,
  type SignalRow,
  type SignalRuleRow,
} from './repository.js';

/**
 * How long a match may stay `pending` before the sweep takes it as lost. A start in the request takes well under this
 * (an LLM routing decision included); one that takes longer and meets the sweep's still starts one run (see
 * startMatch).
 */
export const PENDING_MATCH_AGE_SECONDS = 30;
/** Matches one sweep takes at most; a backlog drains over the next sweeps. */
const SWEEP_BATCH = 100;

/**
 * Starts a pending match's run within its rule's recorded grant and writes
 * the outcome with its `signal.matched` event, in one transaction. At most
 * once per match whoever calls it and however often: the run's id is fixed
 * by the match's (jobs/automation/start-run.ts), and only a `pending` match
 * is settled, so the request and the sweep racing make one run and one
 * event. `rules` caches the rules of one signal's matches.
 */
export async function startMatch(
  deps: Deps,
  match: SignalMatchRow,
  signal: Pick<SignalRow, 'id' | 'type' | 'subject'>,
  rules = new Map<string, SignalRuleRow | null>(),
): Promise<SignalMatchRow> {
  const ruleId = match.rule_id;
  if (ruleId && !rules.has(ruleId)) rules.set(ruleId, await getRule(deps.db, match.account_id, ruleId));
  const rule = ruleId ? rules.get(ruleId) : null;
  const started = rule
    ? await startAutomatedRun(
        deps,
        match.account_id,
        rule.target as RunTarget,
        rule,
        {
          startedBy: `signalRule:${rule.id}`,
          signalId: signal.id,
          ruleId: rule.id,
          matchId: match.id,
          type: signal.type,
          subject: signal.subject,
        },
        match.id,
      )
    : { outcome: 'failed' as const, reason: 'rule deleted before its run started' };
  const result = await deps.db.transaction(async (trx) => {
    const row = await settleMatch(trx, match.id, {
      outcome: started.outcome,
      runId: started.outcome === 'started' ? started.runId : null,
      reason: started.outcome === 'started' ? null : started.reason,
    });
    return row ? { row, deliveries: (await recordMatched(trx, row)).deliveries } : null;
  });
  if (result?.deliveries) await wakeDispatcher(deps);
  // Settled by the other attempt meanwhile: answer what it recorded.
  return result?.row ?? (await getMatch(deps.db, match.id)) ?? match;
}

/**
 * The `signals.pending` sweep: starts the matches a process committed and
 * then died before starting (or before recording how the start went), each
 * once. Returns how many it took and how many of them have a run now.
 */
export async function sweepPendingMatches(deps: Deps): Promise<{ taken: number; started: number }> {
  const taken = await claimStalePendingMatches(deps.db, PENDING_MATCH_AGE_SECONDS, SWEEP_BATCH);
  const rules = new Map<string, SignalRuleRow | null>();
  let started = 0;
  for (const match of taken) {
    const signal = await getSignal(deps.db, match.account_id, match.signal_id);
    if (!signal) continue; // deleted with its account: the match went with it
    if ((await startMatch(deps, match, signal, rules)).outcome === 'started') started++;
  }
  if (taken.length > 0) deps.log.info({ taken: taken.length, started }, 'pending signal matches started');
  return { taken: taken.length, started };
}

/** The `signal.matched` event of a match, in the transaction that decides it. */
export function recordMatched(trx: Db, match: SignalMatchRow) {
  return recordEvent(trx, {
    accountId: match.account_id,
    type: 'signal.matched',
    subject: match.signal_id,
    payload: {
      signalId: match.signal_id,
      ruleId: match.rule_id,
      matchId: match.id,
      subject: match.subject,
      outcome: match.outcome,
      runId: match.run_id,
      reason: match.reason,
    },
  });
}
