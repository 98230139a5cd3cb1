import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import type { WaitpointRow } from '../../shared/db/run-steps.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { sendMail } from '../../shared/mail.js';
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

/** Who is told: an approval's approvers (owner, admin, approver); a choice's submitter (else the owners and admins). */
async function recipients(db: Db, wp: WaitpointRow) {
  const run = await db('runs').where({ id: wp.run_id }).first('submitted_by');
  return engineHooks().escalationRecipients(db, {
    accountId: wp.account_id,
    approval: wp.kind === 'awaitingApproval',
    submittedBy: run?.submitted_by ?? null,
  });
}

function mailFor(wp: WaitpointRow, gate: GateKind | null, expiresAt: string) {
  const asked = typeof wp.payload.question === 'string' ? wp.payload.question : null;
  if (gate) {
    return {
      subject: `Approval waiting: run ${wp.run_id} (${gate}) expires ${expiresAt}`,
      text:
        `Run ${wp.run_id} waits for an approval (${asked ?? `approve the ${gate} gate`}). ` +
        `Unanswered, it fails closed at ${expiresAt}.\n` +
        `Approve or refuse: POST /v1/runs/${wp.run_id}/resume ` +
        '(the member who submitted the run cannot approve it).\n',
    };
  }
  return {
    subject: `Choice waiting: run ${wp.run_id} expires ${expiresAt}`,
    text:
      `Run ${wp.run_id} waits for your choice at ${wp.domain}${asked ? ` (${asked})` : ''}. ` +
      `Unanswered, it ends as expired at ${expiresAt}.\n` +
      `Answer: POST /v1/runs/${wp.run_id}/resume with the itemId of one of its choices ` +
      `(GET /v1/runs/${wp.run_id} lists them).\n`,
  };
}

/**
 * Escalates once: the sweep whose conditional write marks the waitpoint
 * writes the `waitpoint.escalated` event, the audit entry and the trace in
 * that transaction; the mails follow the commit (a mail is not undone).
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
    return { deliveries, expiresAt, to: notify.to };
  });
  if (!done) return false;
  if (done.deliveries > 0) await engineHooks().wakeDeliveries(deps);
  const mail = mailFor(wp, gate, done.expiresAt);
  for (const to of done.to) await sendMail(deps, { accountId: wp.account_id, to, ...mail });
  return true;
}
