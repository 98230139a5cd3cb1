import type { Knex } from 'knex';
import type { Deps } from '../../shared/deps.js';
import { finishAttempt, insertChild, lockLeased, type DeliveryRow } from '../../shared/db/deliveries.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { DISABLE_AFTER_FAILING_MS, nextDelayMs } from './logic.js';

export function retrySchedule(deps: Pick<Deps, 'config'>): number[] {
  return deps.config.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number);
}

/** Wakes the dispatcher now or after `delayMs`; wake-ups within the same 200 ms coalesce into one job. */
export async function wakeDispatcher(deps: Pick<Deps, 'queues' | 'log'>, delayMs = 0): Promise<void> {
  const due = Date.now() + delayMs;
  await deps.queues.queue('webhooks')
    .add('dispatch', {}, { delay: delayMs, jobId: `dispatch.${Math.ceil(due / 200)}`, removeOnComplete: true, removeOnFail: 100 })
    .catch((err: Error) => deps.log.warn({ err: err.message }, 'dispatcher wake-up not enqueued; the clock will pump'));
}

async function disableSubscription(trx: Knex.Transaction, accountId: string, subscriptionId: string, reason: string) {
  const n = await trx('subscriptions').where({ id: subscriptionId }).whereNot({ status: 'disabled' }).update({ status: 'disabled', disabled_reason: reason, updated_at: trx.fn.now() });
  if (n > 0) await recordEvent(trx, { accountId, type: 'subscription.disabled', subject: subscriptionId, payload: { subscriptionId, reason } });
}

export async function completeAttempt(deps: Deps, accountId: string | null, id: string, token: string, fields: { responseStatus?: number | null; responseExcerpt?: string | null } = {}): Promise<DeliveryRow> {
  return deps.db.transaction(async (trx) => {
    const row = await lockLeased(trx, accountId, id, token);
    const done = await finishAttempt(trx, row.id, 'completed', { ...fields, error: null });
    await trx('subscriptions').where({ id: row.subscription_id }).update({ failing_since: null });
    return done;
  });
}

/**
 * Fails a leased attempt and, unless told not to, schedules the next one on
 * the retry schedule (or after `retryAfterMs`). A subscription failing
 * without a success for 5 days, or answered 410 Gone, is disabled with a
 * `subscription.disabled` event.
 */
export async function failAttempt(
  deps: Deps, accountId: string | null, id: string, token: string,
  opts: { error?: string | null; responseStatus?: number | null; responseExcerpt?: string | null; retry: boolean; retryAfterMs?: number | null; gone?: boolean },
): Promise<{ delivery: DeliveryRow; next: DeliveryRow | null }> {
  const result = await deps.db.transaction(async (trx) => {
    const row = await lockLeased(trx, accountId, id, token);
    const delivery = await finishAttempt(trx, row.id, 'failed', { error: opts.error ?? null, responseStatus: opts.responseStatus ?? null, responseExcerpt: opts.responseExcerpt ?? null });
    const [sub] = await trx('subscriptions').where({ id: row.subscription_id }).update({ failing_since: trx.raw('coalesce(failing_since, now())') }).returning(['status', 'failing_since']);
    if (opts.gone) await disableSubscription(trx, row.account_id, row.subscription_id, 'the endpoint answered 410 Gone');
    else if (sub && Date.now() - new Date(sub.failing_since).getTime() > DISABLE_AFTER_FAILING_MS) {
      await disableSubscription(trx, row.account_id, row.subscription_id, 'deliveries failed continuously for 5 days');
    }
    const active = (await trx('subscriptions').where({ id: row.subscription_id }).first('status'))?.status === 'active';
    const delay = opts.retryAfterMs ?? nextDelayMs(row.attempt, retrySchedule(deps));
    const next = opts.retry && active && !opts.gone && delay !== null ? await insertChild(trx, row, delay) : null;
    return { delivery, next, delay };
  });
  if (result.next) await wakeDispatcher(deps, result.delay ?? 0);
  return { delivery: result.delivery, next: result.next };
}
