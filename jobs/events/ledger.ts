import type { Knex } from 'knex';
import type { Deps } from '../../shared/deps.js';
import { finishAttempt, insertChild, lockLeased, type DeliveryRow } from '../../shared/db/deliveries.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { DISABLE_AFTER_FAILING_MS, nextDelayMs } from './logic.js';

export function retrySchedule(deps: Pick<Deps, 'config'>): number[] {
  return deps.config.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number);
}

/**
 * Wakes the dispatcher now or after `delayMs`. Wake-ups for the same second
 * coalesce into one job; one that coalesces into a dispatch already running
 * is covered by that run, which re-checks what is due before it ends, and
 * in the worst case by the clock's pump a minute later.
 */
export async function wakeDispatcher(deps: Pick<Deps, 'queues' | 'log'>, delayMs = 0): Promise<void> {
  const due = Date.now() + Math.max(0, delayMs);
  await deps.queues.queue('webhooks')
    .add('dispatch', {}, { delay: Math.max(0, delayMs), jobId: `dispatch.${Math.ceil(due / 1000)}`, removeOnComplete: true, removeOnFail: 100 })
    .catch((err: Error) => deps.log.warn({ err: err.message }, 'dispatcher wake-up not enqueued; the clock will pump'));
}

async function disableSubscription(trx: Knex.Transaction, accountId: string, subscriptionId: string, reason: string) {
  const n = await trx('subscriptions').where({ id: subscriptionId }).whereNot({ status: 'disabled' }).update({ status: 'disabled', disabled_reason: reason, updated_at: trx.fn.now() });
  if (n > 0) await recordEvent(trx, { accountId, type: 'subscription.disabled', subject: subscriptionId, payload: { subscriptionId, reason } });
}

/**
 * Completes a leased attempt in one statement (the hot path of every
 * delivery): the lease checks are in its WHERE clause, and a success clears
 * the subscription's failing streak. When no row qualifies, `lockLeased`
 * says precisely why (404, finished, stale token, expired lease).
 */
export async function completeAttempt(deps: Deps, accountId: string | null, id: string, token: string, fields: { responseStatus?: number | null; responseExcerpt?: string | null } = {}): Promise<DeliveryRow> {
  const result = await deps.db.raw(
    `WITH done AS (
       UPDATE deliveries SET status = 'completed', finished_at = now(), updated_at = now(), lease_token = NULL, lease_expires_at = NULL,
         response_status = ?, response_excerpt = ?, error = NULL
       WHERE id = ? AND status = 'claimed' AND lease_token = ? AND lease_expires_at > now() ${accountId ? 'AND account_id = ?' : ''}
       RETURNING *),
     streak AS (UPDATE subscriptions SET failing_since = NULL WHERE id = (SELECT subscription_id FROM done) AND failing_since IS NOT NULL)
     SELECT * FROM done`,
    [fields.responseStatus ?? null, fields.responseExcerpt ?? null, id, token, ...(accountId ? [accountId] : [])],
  );
  if (result.rows.length === 1) return result.rows[0];
  return deps.db.transaction(async (trx) => {
    await lockLeased(trx, accountId, id, token);
    throw new Error(`delivery ${id} could not be completed`); // unreachable: lockLeased throws the precise 404/409
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
