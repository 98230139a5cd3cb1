import type { Db } from '../../shared/db/knex.js';
import { resolvedWaitpointOfItem, type WaitpointRow } from '../../shared/db/run-steps.js';
import { conflict } from '../../shared/errors.js';
import type { RunAnswer } from '../domain.js';

const iso = (at: string | Date | null) => (at ? new Date(at).toISOString() : null);

/** Whether the open waitpoint offers `itemId` itself (a choice among its items, a payment for that item). */
const offers = (wp: WaitpointRow | null, itemId: string) =>
  Boolean(wp) && JSON.stringify(wp!.payload).includes(JSON.stringify(itemId));

/**
 * A client that retries an answer it lost the reply to sends the same
 * `itemId` again, after its waitpoint was resolved and another (a proxy
 * mission, a payment approval) may be open. That is a second resume: 409
 * naming the waitpoint the item was answered at and how, whatever waitpoint
 * is open now. The one exception is an open waitpoint that offers the same
 * item under another action (the payment approval of the item just bought):
 * that is a new answer. Checked before the domain answers, and again under the
 * run's lock (two retries racing).
 */
export async function refuseRepeatedAnswer(
  db: Db,
  accountId: string,
  runId: string,
  answer: RunAnswer,
  open: WaitpointRow | null,
): Promise<void> {
  if (!answer.itemId) return;
  const earlier = await resolvedWaitpointOfItem(db, accountId, runId, answer.itemId);
  if (!earlier) return;
  const resolution = earlier.resolution ?? {};
  const earlierAction = typeof resolution.action === 'string' ? resolution.action : null;
  if (offers(open, answer.itemId) && answer.action && answer.action !== earlierAction) return;
  throw conflict(
    `itemId ${answer.itemId} was answered already: waitpoint ${earlier.id} (${earlier.kind} at ${earlier.domain}) ` +
      `was resolved${earlierAction ? ` with action ${earlierAction}` : ''} at ${iso(earlier.resolved_at)}; ` +
      `a waitpoint resolves once${open ? ` (the run now waits at ${open.kind}, waitpoint ${open.id})` : ''}`,
    {
      waitpointId: earlier.id,
      kind: earlier.kind,
      domain: earlier.domain,
      resolvedAt: iso(earlier.resolved_at),
      resolution: { itemId: answer.itemId, action: earlierAction },
      openWaitpointId: open?.id ?? null,
    },
  );
}
