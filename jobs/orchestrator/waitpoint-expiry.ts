import type { Deps } from '../../shared/deps.js';
import type { Config } from '../../shared/config.js';
import { closeOpenWaitpoint, lockOpenWaitpoint, lockRun } from '../../shared/db/run-writes.js';
import type { WaitpointRow } from '../../shared/db/run-steps.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { sendMail } from '../../shared/mail.js';
import { approverEmails } from '../approvals/repository.js';
import { gateOfWaitpoint } from '../approvals/authorize.js';
import { wakeDispatcher } from '../events/wake.js';
import { finalizeSegment } from './finalize.js';
import { inRunTx } from './run-events.js';
import { moveRun } from './run-state.js';

/** Waitpoints one sweep escalates or expires at most; a backlog drains over the next minutes. */
const BATCH = 200;

/**
 * How long a waitpoint of `kind` stays open, in seconds; null when the
 * engine does not expire it (a proxy mission expires itself, and resolves
 * its waitpoint: jobs/proxy/expiry.ts).
 */
export function waitpointTtlSeconds(config: Pick<Config, 'APPROVAL_WAITPOINT_TTL_HOURS' | 'INPUT_WAITPOINT_TTL_HOURS'>, kind: string): number | null {
  if (kind === 'awaitingApproval') return Math.round(config.APPROVAL_WAITPOINT_TTL_HOURS * 3600);
  if (kind === 'NEEDS_INPUT') return Math.round(config.INPUT_WAITPOINT_TTL_HOURS * 3600);
  return null;
}

/**
 * The clock's `waitpoints.expire` sweep (every minute). An approval nobody
 * answered escalates once when WAITPOINT_ESCALATE_BEFORE of its lifetime is
 * left (a `waitpoint.escalated` event and a mail to the account's
 * approvers), and at its expiry fails closed: the run rests `expired` with
 * the reason, and nothing it waited for happens. Each is decided by a
 * conditional write (escalation) or under the run's row lock (expiry), so
 * two sweeps at once do each at most once.
 */
export async function sweepWaitpoints(deps: Deps): Promise<{ escalated: number; expired: number; skipped: number }> {
  const counts = { escalated: 0, expired: 0, skipped: 0 };
  for (const wp of await dueForEscalation(deps)) if (await escalate(deps, wp)) counts.escalated++;
  const due: WaitpointRow[] = await deps.db('waitpoints').whereNull('resolved_at').where('expires_at', '<=', deps.db.fn.now())
    .orderBy('expires_at').limit(BATCH);
  for (const wp of due) {
    if (await expire(deps, wp)) counts.expired++;
    else counts.skipped++;
  }
  return counts;
}

async function dueForEscalation(deps: Deps): Promise<WaitpointRow[]> {
  return deps.db('waitpoints').whereNull('resolved_at').whereNull('escalated_at').where({ kind: 'awaitingApproval' })
    .where('expires_at', '>', deps.db.fn.now())
    .whereRaw('now() >= expires_at - (expires_at - created_at) * ?::float8', [deps.config.WAITPOINT_ESCALATE_BEFORE])
    .orderBy('expires_at').limit(BATCH);
}

/** Escalates once: the sweep that marks the waitpoint writes the event; the approvers' mail follows the commit. */
async function escalate(deps: Deps, wp: WaitpointRow): Promise<boolean> {
  const gate = gateOfWaitpoint(wp);
  const done = await inRunTx(deps, wp.run_id, wp.account_id, async (trx, emit) => {
    const [marked] = await trx('waitpoints').where({ id: wp.id }).whereNull('escalated_at').whereNull('resolved_at')
      .update({ escalated_at: trx.fn.now() }).returning(['expires_at']);
    if (!marked) return null;
    const expiresAt = new Date(marked.expires_at).toISOString();
    const payload = { runId: wp.run_id, waitpointId: wp.id, kind: wp.kind, gate, domain: wp.domain, expiresAt };
    const { deliveries } = await recordEvent(trx, { accountId: wp.account_id, type: 'waitpoint.escalated', subject: wp.run_id, payload });
    emit('trace', { event: 'waitpoint.escalated', waitpointId: wp.id, gate, expiresAt });
    return { deliveries, expiresAt };
  });
  if (!done) return false;
  if (done.deliveries > 0) await wakeDispatcher(deps);
  const question = typeof wp.payload.question === 'string' ? wp.payload.question : `approve the ${gate} gate`;
  for (const to of await approverEmails(deps.db, wp.account_id)) {
    await sendMail(deps, {
      accountId: wp.account_id, to, subject: `Approval waiting: run ${wp.run_id} (${gate}) expires ${done.expiresAt}`,
      text: `Run ${wp.run_id} waits for an approval (${question}). Unanswered, it fails closed at ${done.expiresAt}.\n`
        + `Approve or refuse: POST /v1/runs/${wp.run_id}/resume (the member who submitted the run cannot approve it).\n`,
    });
  }
  return true;
}

/** Fails the waitpoint closed under the run's lock: only the sweep that still finds it open and due ends the run. */
async function expire(deps: Deps, wp: WaitpointRow): Promise<boolean> {
  const hours = wp.kind === 'awaitingApproval' ? deps.config.APPROVAL_WAITPOINT_TTL_HOURS : deps.config.INPUT_WAITPOINT_TTL_HOURS;
  const reason = wp.kind === 'awaitingApproval'
    ? `the ${gateOfWaitpoint(wp)} approval was not given within ${hours} h: it failed closed, nothing it held back was done`
    : `no answer came within ${hours} h`;
  const ended = await inRunTx(deps, wp.run_id, wp.account_id, async (trx, emit) => {
    const run = await lockRun(trx, wp.account_id, wp.run_id);
    const open = await lockOpenWaitpoint(trx, wp.run_id);
    // Answered, canceled or expired by another sweep meanwhile; or written by a segment that has not come to rest yet.
    if (!run || !open || open.id !== wp.id || run.status !== open.kind || run.segment !== open.segment) return false;
    if (!(await trx('waitpoints').where({ id: wp.id }).where('expires_at', '<=', trx.fn.now()).first())) return false;
    if (!(await moveRun(trx, wp.run_id, 'expired', { error: reason, segment: run.segment + 1 }))) return false;
    await closeOpenWaitpoint(trx, wp.run_id, { expired: true, reason });
    emit('trace', { event: 'waitpoint.expired', waitpointId: wp.id, kind: wp.kind, reason });
    return true;
  });
  // Like a canceled run resting at a waitpoint, it has no flow left to finalize it.
  if (ended) await finalizeSegment(deps, wp.run_id);
  return ended;
}
