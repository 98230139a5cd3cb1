import type { Db } from '../../shared/db/knex.js';
import { resolvedWaitpointOfItem, type WaitpointRow } from '../../shared/db/run-steps.js';
import { conflict } from '../../shared/errors.js';
import type { RunAnswer } from '../domain.js';
import { domainModule } from '../module-registry.js';

const iso = (at: string | Date | null) => (at ? new Date(at).toISOString() : null);

/** Whether the open waitpoint offers `itemId` itself (a choice among its items, a payment for that item). */
const offers = (wp: WaitpointRow | null, itemId: string) =>
  Boolean(wp) && JSON.stringify(wp!.payload).includes(JSON.stringify(itemId));

/** Whether the open waitpoint's domain takes `action` as an answer (pay: settle or decline). */
const takes = (wp: WaitpointRow | null, action: string) =>
  Boolean(wp) && Object.hasOwn(domainModule(wp!.domain)?.resumeActions ?? {}, action);

/**
 * A client that retries an answer it lost the reply to sends the same
 * `itemId` again, after its waitpoint was resolved and another (a proxy
 * mission, a payment approval) may be open. That is a second resume: 409
 * naming the waitpoint the item was answered at and how, whatever waitpoint
 * is open now. So is another item of a choice already made, and the same item
 * under an action the open waitpoint does not take: the choice resolved once.
 * The one exception is an open waitpoint that offers the same item and takes
 * the answer's other action (the payment approval of the item just bought:
 * settle): that is a new answer. Checked before the domain answers, and again
 * under the run's lock (two retries racing).
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
  const earlierItem = typeof resolution.itemId === 'string' ? resolution.itemId : null;
  const newAnswer = answer.action && answer.action !== earlierAction && takes(open, answer.action);
  if (newAnswer && offers(open, answer.itemId)) return;
  const said =
    earlierItem === answer.itemId
      ? `itemId ${answer.itemId} was answered already`
      : `itemId ${answer.itemId} was offered by a choice answered already${earlierItem ? ` with ${earlierItem}` : ''}`;
  throw conflict(
    `${said}: waitpoint ${earlier.id} (${earlier.kind} at ${earlier.domain}) ` +
      `was resolved${earlierAction ? ` with action ${earlierAction}` : ''} at ${iso(earlier.resolved_at)}; ` +
      `a waitpoint resolves once${open ? ` (the run now waits at ${open.kind}, waitpoint ${open.id})` : ''}`,
    {
      waitpointId: earlier.id,
      kind: earlier.kind,
      domain: earlier.domain,
      resolvedAt: iso(earlier.resolved_at),
      resolution: { itemId: earlierItem, action: earlierAction },
      openWaitpointId: open?.id ?? null,
    },
  );
}
