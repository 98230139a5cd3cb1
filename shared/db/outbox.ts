import type { Knex } from 'knex';
import { prepared, type Db } from './knex.js';
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

/** A SQL fragment and its bindings, to be composed into one statement. */
export interface SqlPart {
  sql: string;
  bindings: Knex.RawBinding[];
}

/**
 * The outbox insert and its fan-out as CTEs (`outbox_event`, `outbox_matched`,
 * `outbox_deliveries`), so an event, its delivery attempts and the state change
 * they report can be one statement. With `gate` (the name of an earlier CTE)
 * nothing is recorded unless that CTE returned a row.
 *
 * Fan-out: one root delivery attempt per active or paused subscription of the
 * account whose `events` match the type (exact, `prefix.*` or `*`); those of
 * a paused one start held, to be delivered when it is resumed. Idempotent:
 * the unique (event, subscription) root index makes a second fan-out a no-op.
 * The subscriptions read are locked FOR KEY SHARE, so a pause or resume (which
 * locks its subscription FOR UPDATE) is ordered with this fan-out: a resume
 * never misses an attempt this statement holds, a pause never misses one it
 * leaves claimable.
 */
export function outboxCtes(event: OutboxEvent & { id: string }, gate?: string): SqlPart {
  return {
    sql: `outbox_event AS (
       INSERT INTO events (id, account_id, type, source, subject, payload, fanned_out_at)
       SELECT ?, ?, ?, ?, ?, ?::jsonb, now() ${gate ? `WHERE EXISTS (SELECT 1 FROM ${gate})` : ''}
       RETURNING id, account_id, type),
     ${FAN_OUT}`,
    // Fanned out in this same statement, so the outbox reconciler can skip it.
    bindings: [
      event.id,
      event.accountId,
      event.type,
      event.source ?? 'service',
      event.subject ?? null,
      JSON.stringify(event.payload),
    ],
  };
}

/** Delivery attempts for the rows of `outbox_event` (id, account_id, type): see outboxCtes. */
const FAN_OUT = `outbox_matched AS (
       SELECT e.id AS event_id, e.account_id, s.id AS subscription_id, s.mode, s.status = 'paused' AS held,
           'dlv_' || replace(gen_random_uuid()::text, '-', '') AS delivery_id
       FROM outbox_event e JOIN subscriptions s ON s.account_id = e.account_id
       WHERE s.status IN ('active', 'paused')
         AND EXISTS (SELECT 1 FROM unnest(s.events) p WHERE p = '*' OR p = e.type OR (right(p, 2) = '.*'
             AND e.type LIKE left(p, -1) || '%'))
       FOR KEY SHARE OF s),
     outbox_deliveries AS (
       INSERT INTO deliveries (id, account_id, event_id, subscription_id, root_id, mode, held)
       SELECT delivery_id, account_id, event_id, subscription_id, delivery_id, mode, held FROM outbox_matched
       ON CONFLICT DO NOTHING RETURNING 1)`;

/** Fan-out of an event recorded earlier without one (the outbox reconciler's path). */
export async function fanOut(trx: Db, eventId: string): Promise<number> {
  const result = await trx.raw(
    `WITH outbox_event AS (SELECT id, account_id, type FROM events WHERE id = ?), ${FAN_OUT} SELECT (SELECT ` +
      `count(*) FROM outbox_deliveries)::int AS deliveries`,
    [eventId],
  );
  return result.rows[0].deliveries;
}

/**
 * The one way domain code records an integration event. Pass the transaction
 * that makes the state change: the event and its delivery attempts commit
 * (or not) with it, in one statement. When `deliveries` > 0 the caller wakes
 * the dispatcher after commit; the clock's pump covers a caller that does not.
 */
export async function recordEvent(trx: Db, event: OutboxEvent): Promise<{ eventId: string; deliveries: number }> {
  const id = newId('evt');
  const part = outboxCtes({ ...event, id });
  const result = await prepared(
    trx,
    'record_event',
    `WITH ${part.sql} SELECT (SELECT count(*) FROM outbox_deliveries)::int AS deliveries`,
    part.bindings,
  );
  return { eventId: id, deliveries: result.rows[0].deliveries };
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
  db: Knex,
  accountId: string,
  filter: { type?: string; since?: string; until?: string; acknowledged?: boolean },
  limit: number,
  cursor?: string,
): Promise<{ rows: EventRow[]; nextCursor: string | null }> {
  const q = db('events').where({ account_id: accountId });
  if (filter.type) q.andWhere({ type: filter.type });
  if (filter.since) q.andWhere('created_at', '>=', filter.since);
  if (filter.until) q.andWhere('created_at', '<', filter.until);
  if (filter.acknowledged !== undefined)
    q.andWhere((b) => {
      if (filter.acknowledged) b.whereNotNull('acked_at');
      else b.whereNull('acked_at');
    });
  return page<EventRow>(q, limit, cursor);
}

/** Sets `acked_at` unless it is set already (the first ack time is kept); returns how many rows changed. */
export async function ackEvent(db: Db, accountId: string, eventId: string): Promise<number> {
  return db('events')
    .where({ id: eventId, account_id: accountId })
    .whereNull('acked_at')
    .update({ acked_at: db.fn.now() });
}

/** Events by id across accounts (the dispatcher's batch lookup). */
export async function eventsByIds(
  db: Db,
  ids: string[],
): Promise<Array<Pick<EventRow, 'id' | 'type' | 'source' | 'subject' | 'payload' | 'created_at'>>> {
  if (ids.length === 0) return [];
  return db('events').whereIn('id', ids).select('id', 'type', 'source', 'subject', 'payload', 'created_at');
}

/** Oldest events whose fan-out has not happened, for the reconciler. */
export async function eventsNotFannedOut(
  db: Db,
  limit: number,
): Promise<Array<Pick<EventRow, 'id' | 'account_id' | 'type'>>> {
  return db('events').whereNull('fanned_out_at').orderBy('created_at').limit(limit).select('id', 'account_id', 'type');
}

export async function markFannedOut(db: Db, eventId: string): Promise<void> {
  await db('events').where({ id: eventId }).update({ fanned_out_at: db.fn.now() });
}

/** The account's events after `afterId` in id order (UUIDv7: creation order), their heads only; for live lists. */
export async function eventHeadsAfter(
  db: Db,
  accountId: string,
  afterId: string,
  limit: number,
): Promise<Array<Pick<EventRow, 'id' | 'type' | 'subject' | 'created_at'>>> {
  return db('events')
    .where({ account_id: accountId })
    .andWhere('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .select('id', 'type', 'subject', 'created_at');
}
