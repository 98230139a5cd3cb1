import type { Knex } from 'knex';
import type { Db } from './knex.js';
import { page } from './page.js';
import { newId } from '../ids.js';
import type { EventSource } from '../schemas/events.js';

export interface OutboxEvent {
  accountId: string;
  type: string;
  payload: Record<string, unknown>;
  /** The record the event is about (`task_...`, `run_...`). */
  subject?: string;
  /** `service` unless a client recorded it (POST /v1/events). */
  source?: EventSource;
}

/**
 * Creates one root delivery attempt per active or paused subscription of the
 * account whose `events` match the type (exact, `prefix.*` or `*`); those of
 * a paused one start held, to be delivered when it is resumed. Idempotent:
 * the unique (event, subscription) root index makes a second fan-out a no-op.
 * The subscriptions read are locked FOR KEY SHARE, so a pause or resume (which
 * locks its subscription FOR UPDATE) is ordered with this fan-out: a resume
 * never misses an attempt this transaction holds, a pause never misses one it
 * leaves claimable.
 */
export async function fanOut(trx: Db, eventId: string, accountId: string, type: string): Promise<number> {
  const result = await trx.raw(
    `WITH matched AS (
       SELECT s.id AS subscription_id, s.mode, s.status = 'paused' AS held, 'dlv_' || replace(gen_random_uuid()::text, '-', '') AS delivery_id
       FROM subscriptions s
       WHERE s.account_id = ? AND s.status IN ('active', 'paused')
         AND EXISTS (SELECT 1 FROM unnest(s.events) p WHERE p = '*' OR p = ? OR (right(p, 2) = '.*' AND ? LIKE left(p, -1) || '%'))
       FOR KEY SHARE OF s)
     INSERT INTO deliveries (id, account_id, event_id, subscription_id, root_id, mode, held)
     SELECT delivery_id, ?, ?, subscription_id, delivery_id, mode, held FROM matched
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

export interface EventRow {
  id: string;
  account_id: string;
  type: string;
  source: EventSource;
  subject: string | null;
  payload: Record<string, unknown>;
  created_at: Date;
  acked_at: Date | null;
  fanned_out_at: Date | null;
}

export async function getEvent(db: Db, accountId: string, eventId: string): Promise<EventRow | null> {
  return (await db('events').where({ id: eventId, account_id: accountId }).first()) ?? null;
}

export async function listEvents(
  db: Knex, accountId: string, filter: { type?: string; since?: string; until?: string; acknowledged?: boolean }, limit: number, cursor?: string,
): Promise<{ rows: EventRow[]; nextCursor: string | null }> {
  const q = db('events').where({ account_id: accountId });
  if (filter.type) q.andWhere({ type: filter.type });
  if (filter.since) q.andWhere('created_at', '>=', filter.since);
  if (filter.until) q.andWhere('created_at', '<', filter.until);
  if (filter.acknowledged !== undefined) q.andWhere((b) => (filter.acknowledged ? b.whereNotNull('acked_at') : b.whereNull('acked_at')));
  return page<EventRow>(q, limit, cursor);
}

/** Sets `acked_at` unless it is set already (the first ack time is kept); returns how many rows changed. */
export async function ackEvent(db: Db, accountId: string, eventId: string): Promise<number> {
  return db('events').where({ id: eventId, account_id: accountId }).whereNull('acked_at').update({ acked_at: db.fn.now() });
}

/** Events by id across accounts (the dispatcher's batch lookup). */
export async function eventsByIds(db: Db, ids: string[]): Promise<Array<Pick<EventRow, 'id' | 'type' | 'source' | 'subject' | 'payload' | 'created_at'>>> {
  if (ids.length === 0) return [];
  return db('events').whereIn('id', ids).select('id', 'type', 'source', 'subject', 'payload', 'created_at');
}

/** Oldest events whose fan-out has not happened, for the reconciler. */
export async function eventsNotFannedOut(db: Db, limit: number): Promise<Array<Pick<EventRow, 'id' | 'account_id' | 'type'>>> {
  return db('events').whereNull('fanned_out_at').orderBy('created_at').limit(limit).select('id', 'account_id', 'type');
}

export async function markFannedOut(db: Db, eventId: string): Promise<void> {
  await db('events').where({ id: eventId }).update({ fanned_out_at: db.fn.now() });
}
