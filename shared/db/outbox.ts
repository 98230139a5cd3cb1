import type { Db } from './knex.js';
import { newId } from '../ids.js';

export interface OutboxEvent {
  accountId: string;
  type: string;
  payload: Record<string, unknown>;
  /** The record the event is about (`task_...`, `run_...`). */
  subject?: string;
  source?: string;
}

/**
 * Creates one root delivery attempt per active subscription of the account
 * whose `events` match the type (exact, `prefix.*` or `*`). Idempotent: the
 * unique (event, subscription) root index makes a second fan-out a no-op.
 */
export async function fanOut(trx: Db, eventId: string, accountId: string, type: string): Promise<number> {
  const result = await trx.raw(
    `WITH matched AS (
       SELECT s.id AS subscription_id, s.mode, 'dlv_' || replace(gen_random_uuid()::text, '-', '') AS delivery_id
       FROM subscriptions s
       WHERE s.account_id = ? AND s.status = 'active'
         AND EXISTS (SELECT 1 FROM unnest(s.events) p WHERE p = '*' OR p = ? OR (right(p, 2) = '.*' AND ? LIKE left(p, -1) || '%')))
     INSERT INTO deliveries (id, account_id, event_id, subscription_id, root_id, mode)
     SELECT delivery_id, ?, ?, subscription_id, delivery_id, mode FROM matched
     ON CONFLICT DO NOTHING`,
    [accountId, type, type, accountId, eventId],
  );
  return result.rowCount ?? 0;
}

/**
 * The one way domain code records an integration event. Pass the transaction
 * that makes the state change: the event and its delivery attempts commit
 * (or not) with it. When `deliveries` > 0 the caller wakes the dispatcher
 * after commit; the clock's pump covers a caller that does not.
 */
export async function recordEvent(trx: Db, event: OutboxEvent): Promise<{ eventId: string; deliveries: number }> {
  const id = newId('evt');
  await trx('events').insert({
    id,
    account_id: event.accountId,
    type: event.type,
    source: event.source ?? 'service',
    subject: event.subject ?? null,
    payload: JSON.stringify(event.payload),
    // Fanned out in this same transaction, so the outbox reconciler can skip it.
    fanned_out_at: trx.fn.now(),
  });
  return { eventId: id, deliveries: await fanOut(trx, id, event.accountId, event.type) };
}
