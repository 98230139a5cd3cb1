import type { Deps } from '../../shared/deps.js';
import type { Config } from '../../shared/config.js';
import { closeOpenWaitpoint, lockOpenWaitpoint, lockRun } from '../../shared/db/run-writes.js';
import type { WaitpointRow } from '../../shared/db/run-steps.js';
import { gateOfWaitpoint } from '../approval-gates.js';
import { engineHooks } from '../module-registry.js';
import { finalizeSegment } from './finalize.js';
import { inRunTx } from './run-events.js';
import { moveRun } from './run-state.js';
import { dueForEscalation, escalate, gateOrNull } from './waitpoint-escalation.js';

/** Waitpoints one sweep expires at most; a backlog drains over the next minutes. */
const BATCH = 200;

/**
 * How long a waitpoint of `kind` stays open, in seconds; null when the
 * engine does not expire it (a proxy mission expires itself, and resolves
 * its waitpoint: jobs/proxy/expiry.ts).
 */
export function waitpointTtlSeconds(
  config: Pick<Config, 'APPROVAL_WAITPOINT_TTL_HOURS' | 'INPUT_WAITPOINT_TTL_HOURS'>,
  kind: string,
): number | null {
  if (kind === 'awaitingApproval') return Math.round(config.APPROVAL_WAITPOINT_TTL_HOURS * 3600);
  if (kind === 'NEEDS_INPUT') return Math.round(config.INPUT_WAITPOINT_TTL_HOURS * 3600);
  return null;
}

/**
 * The clock's `waitpoints.expire` sweep (every minute). A waitpoint with an
 * expiry (an approval, a choice) nobody answered escalates once when
 * WAITPOINT_ESCALATE_BEFORE of its lifetime is left (a `waitpoint.escalated`
 * event, an audit entry and a mail: jobs/orchestrator/waitpoint-escalation.ts),
 * and at its expiry fails closed: the run rests `expired` with the reason,
 * and nothing it waited for happens. Each is decided by a conditional write
 * (escalation) or under the run's row lock (expiry), so two sweeps at once
 * do each at most once.
 */
export async function sweepWaitpoints(deps: Deps): Promise<{ escalated: number; expired: number; skipped: number }> {
  const counts = { escalated: 0, expired: 0, skipped: 0 };
  for (const wp of await dueForEscalation(deps)) if (await escalate(deps, wp)) counts.escalated++;
  const due: WaitpointRow[] = await deps
    .db('waitpoints')
    .whereNull('resolved_at')
    .where('expires_at', '<=', deps.db.fn.now())
    .orderBy('expires_at')
    .limit(BATCH);
  for (const wp of due) {
    if (await expire(deps, wp)) counts.expired++;
    else counts.skipped++;
  }
  return counts;
}

/** Fails the waitpoint closed under the run's lock: only the sweep that still finds it open and due ends the run. */
async function expire(deps: Deps, wp: WaitpointRow): Promise<boolean> {
  const hours =
    wp.kind === 'awaitingApproval' ? deps.config.APPROVAL_WAITPOINT_TTL_HOURS : deps.config.INPUT_WAITPOINT_TTL_HOURS;
  const reason =
    wp.kind === 'awaitingApproval'
      ? `the ${gateOfWaitpoint(wp)} approval was not given within ${hours} h: it failed closed, nothing it ` +
        `held back was done`
      : `no answer came within ${hours} h`;
  let notified = 0;
  const ended = await inRunTx(deps, wp.run_id, wp.account_id, async (trx, emit) => {
    const run = await lockRun(trx, wp.account_id, wp.run_id);
    const open = await lockOpenWaitpoint(trx, wp.run_id);
    // Answered, canceled or expired by another sweep meanwhile; or written by a segment that has not come to rest yet.
    if (!run || !open || open.id !== wp.id || run.status !== open.kind || run.segment !== open.segment) return false;
    if (!(await trx('waitpoints').where({ id: wp.id }).where('expires_at', '<=', trx.fn.now()).first())) return false;
    if (!(await moveRun(trx, wp.run_id, 'expired', { error: reason, segment: run.segment + 1 }))) return false;
    await closeOpenWaitpoint(trx, wp.run_id, { expired: true, reason });
    await engineHooks().audit(trx, {
      accountId: wp.account_id,
      action: 'waitpoint.expired',
      resourceType: 'run',
      resourceId: wp.run_id,
      details: { waitpointId: wp.id, kind: wp.kind, gate: gateOrNull(wp), domain: wp.domain, reason },
    });
    emit('trace', { event: 'waitpoint.expired', waitpointId: wp.id, kind: wp.kind, reason });
    notified = await engineHooks().inboxNotice(trx, {
      accountId: wp.account_id,
      event: 'expired',
      waitpoint: {
        id: wp.id,
        kind: wp.kind,
        domain: wp.domain,
        runId: wp.run_id,
        payload: wp.payload,
        expiresAt: wp.expires_at ? new Date(wp.expires_at).toISOString() : null,
      },
      submittedBy: run.submitted_by,
    });
    return true;
  });
  if (notified > 0) await engineHooks().wakeInbox(deps);
  // Like a canceled run resting at a waitpoint, it has no flow left to finalize it.
  if (ended) await finalizeSegment(deps, wp.run_id);
  return ended;
}
