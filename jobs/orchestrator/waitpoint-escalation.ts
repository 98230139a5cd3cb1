import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import type { WaitpointRow } from '../../shared/db/run-steps.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { type GateKind, gateOfWaitpoint } from '../approval-gates.js';
import { engineHooks } from '../module-registry.js';
import { inRunTx } from './run-events.js';

/** Waitpoints one sweep escalates at most; a backlog drains over the next minutes. */
const BATCH = 200;

/** The approval's gate; a choice (NEEDS_INPUT) has none. */
export const gateOrNull = (wp: WaitpointRow): GateKind | null =>
  wp.kind === 'awaitingApproval' ? gateOfWaitpoint(wp) : null;

/**
 * Open waitpoints with an expiry (an approval, a choice) that reached the last
 * WAITPOINT_ESCALATE_BEFORE of their lifetime and never escalated. A proxy
 * waitpoint has no expiry (its mission expires itself), so it never shows.
 */
export async function dueForEscalation(deps: Pick<Deps, 'db' | 'config'>): Promise<WaitpointRow[]> {
  return deps
    .db('waitpoints')
    .whereNull('resolved_at')
    .whereNull('escalated_at')
    .whereNotNull('expires_at')
    .where('expires_at', '>', deps.db.fn.now())
    .whereRaw('now() >= expires_at - (expires_at - created_at) * ?::float8', [deps.config.WAITPOINT_ESCALATE_BEFORE])
    .orderBy('expires_at')
    .limit(BATCH);
}

/**
 * Who is told, as the audit names it: an approval's approvers (owner, admin, approver); a choice's submitter (else
 * the owners and admins). The inbox sends the messages, to an assigned member first (jobs/inbox/notices.ts).
 */
async function recipients(db: Db, wp: WaitpointRow) {
  const run = await db('runs').where({ id: wp.run_id }).first('submitted_by');
  const submittedBy: string | null = run?.submitted_by ?? null;
  const escalation = await engineHooks().escalationRecipients(db, {
    accountId: wp.account_id,
    approval: wp.kind === 'awaitingApproval',
    submittedBy,
  });
  return { ...escalation, submittedBy };
}

/**
 * Escalates once: the sweep whose conditional write marks the waitpoint
 * writes the `waitpoint.escalated` event, the audit entry, the trace and the
 * inbox's notifications in that transaction; the inbox sends them after commit.
 */
export async function escalate(deps: Deps, wp: WaitpointRow): Promise<boolean> {
  const gate = gateOrNull(wp);
  const done = await inRunTx(deps, wp.run_id, wp.account_id, async (trx, emit) => {
    const [marked] = await trx('waitpoints')
      .where({ id: wp.id })
      .whereNull('escalated_at')
      .whereNull('resolved_at')
      .update({ escalated_at: trx.fn.now() })
      .returning(['expires_at']);
    if (!marked) return null;
    const expiresAt = new Date(marked.expires_at).toISOString();
    const notify = await recipients(trx, wp);
    const payload = { runId: wp.run_id, waitpointId: wp.id, kind: wp.kind, gate, domain: wp.domain, expiresAt };
    const { deliveries } = await recordEvent(trx, {
      accountId: wp.account_id,
      type: 'waitpoint.escalated',
      subject: wp.run_id,
      payload,
    });
    await engineHooks().audit(trx, {
      accountId: wp.account_id,
      action: 'waitpoint.escalated',
      resourceType: 'run',
      resourceId: wp.run_id,
      details: { waitpointId: wp.id, kind: wp.kind, gate, domain: wp.domain, expiresAt, notified: notify.audience },
    });
    emit('trace', { event: 'waitpoint.escalated', waitpointId: wp.id, kind: wp.kind, gate, expiresAt });
    // The mails (and chat messages) go out through the inbox's outbox, written here: none is lost to a crash after
    // this commit, and none is sent twice by a second sweep.
    const notified = await engineHooks().inboxNotice(trx, {
      accountId: wp.account_id,
      event: 'escalated',
      waitpoint: { id: wp.id, kind: wp.kind, domain: wp.domain, runId: wp.run_id, payload: wp.payload, expiresAt },
      submittedBy: notify.submittedBy,
    });
    return { deliveries, notified };
  });
  if (!done) return false;
  if (done.deliveries > 0) await engineHooks().wakeDeliveries(deps);
  if (done.notified > 0) await engineHooks().wakeInbox(deps);
  return true;
}
