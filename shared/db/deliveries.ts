import type { Db } from './knex.js';
import { iso } from './knex.js';
import { conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';

export interface DeliveryRow {
  id: string;
  account_id: string;
  event_id: string;
  subscription_id: string;
  root_id: string;
  parent_id: string | null;
  attempt: number;
  status: 'queued' | 'claimed' | 'completed' | 'failed' | 'canceled';
  mode: 'push' | 'pull';
  next_attempt_at: Date;
  lease_token: string | null;
  lease_expires_at: Date | null;
  claimed_by: string | null;
  response_status: number | null;
  response_excerpt: string | null;
  error: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

export const FINISHED = ['completed', 'failed', 'canceled'];

/**
 * Claims up to `limit` due attempts with FOR UPDATE SKIP LOCKED, so
 * concurrent claimers never get the same row; each gets its own lease token.
 * Only attempts in the given mode qualify: the dispatcher claims `push` ones
 * across accounts (`accountId` null) and skips those of paused or disabled
 * subscriptions when it delivers; client workers claim their account's
 * `pull` ones through the API.
 */
export async function claimDeliveries(db: Db, opts: { accountId: string | null; mode: 'push' | 'pull'; limit: number; leaseSeconds: number; claimedBy: string }): Promise<DeliveryRow[]> {
  const result = await db.raw(
    `WITH picked AS (
       SELECT id FROM deliveries
       WHERE status = 'queued' AND mode = ? AND next_attempt_at <= now() ${opts.accountId ? 'AND account_id = ?' : ''}
       ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED)
     UPDATE deliveries d SET status = 'claimed', lease_token = 'lease_' || replace(gen_random_uuid()::text, '-', ''),
       lease_expires_at = now() + make_interval(secs => ?), claimed_by = ?, updated_at = now()
     FROM picked WHERE d.id = picked.id RETURNING d.*`,
    [opts.mode, ...(opts.accountId ? [opts.accountId] : []), opts.limit, opts.leaseSeconds, opts.claimedBy],
  );
  return result.rows;
}

/** Locks an attempt for a lease-holder's action: 404 unknown, 409 finished, not claimed, stale token or expired lease. */
export async function lockLeased(trx: Db, accountId: string | null, id: string, token: string): Promise<DeliveryRow> {
  const q = trx('deliveries').where({ id }).forUpdate().first();
  if (accountId) q.andWhere({ account_id: accountId });
  const row: DeliveryRow | undefined = await q;
  if (!row) throw notFound(`Delivery ${id}`);
  if (row.status !== 'claimed') throw conflict(`Delivery ${id} is ${row.status}, not claimed`, { status: row.status });
  if (row.lease_token !== token) throw conflict('Stale lease token: the lease was released, swept or claimed again');
  if (row.lease_expires_at && new Date(row.lease_expires_at).getTime() < Date.now()) throw conflict('The lease has expired; claim the attempt again');
  return row;
}

export async function lockDelivery(trx: Db, accountId: string, id: string): Promise<DeliveryRow> {
  const row: DeliveryRow | undefined = await trx('deliveries').where({ id, account_id: accountId }).forUpdate().first();
  if (!row) throw notFound(`Delivery ${id}`);
  return row;
}

export async function finishAttempt(trx: Db, id: string, status: 'completed' | 'failed' | 'canceled', fields: { responseStatus?: number | null; responseExcerpt?: string | null; error?: string | null } = {}): Promise<DeliveryRow> {
  const [row] = await trx('deliveries').where({ id }).update({
    status, finished_at: trx.fn.now(), updated_at: trx.fn.now(), lease_token: null, lease_expires_at: null,
    ...(fields.responseStatus !== undefined ? { response_status: fields.responseStatus } : {}),
    ...(fields.responseExcerpt !== undefined ? { response_excerpt: fields.responseExcerpt } : {}),
    ...(fields.error !== undefined ? { error: fields.error } : {}),
  }).returning('*');
  return row;
}

/** The next attempt in a chain: a new queued child row, due after `delayMs`. */
export async function insertChild(trx: Db, parent: DeliveryRow, delayMs: number): Promise<DeliveryRow> {
  const [row] = await trx('deliveries').insert({
    id: newId('dlv'), account_id: parent.account_id, event_id: parent.event_id, subscription_id: parent.subscription_id,
    root_id: parent.root_id, parent_id: parent.id, attempt: parent.attempt + 1, status: 'queued', mode: parent.mode,
    next_attempt_at: trx.raw(`now() + make_interval(secs => ?)`, [delayMs / 1000]),
  }).returning('*');
  return row;
}

/** When the next queued push attempt falls due (null when none is queued). */
export async function nextPushDue(db: Db): Promise<Date | null> {
  const row = await db('deliveries').where({ status: 'queued', mode: 'push' }).min({ at: 'next_attempt_at' }).first();
  return row?.at ?? null;
}

export async function sweepExpiredLeases(db: Db, accountId: string | null): Promise<string[]> {
  const q = db('deliveries').where({ status: 'claimed' }).andWhere('lease_expires_at', '<', db.fn.now())
    .update({ status: 'queued', lease_token: null, lease_expires_at: null, claimed_by: null, updated_at: db.fn.now() }).returning('id');
  if (accountId) q.andWhere({ account_id: accountId });
  return (await q).map((r: { id: string }) => r.id);
}

export async function deliveryStats(db: Db, accountId: string) {
  const counts: Array<{ status: string; n: string }> = await db('deliveries').where({ account_id: accountId }).groupBy('status').select('status').count({ n: '*' }) as never;
  const oldest = await db('deliveries').where({ account_id: accountId, status: 'queued' }).min({ at: 'next_attempt_at' }).first();
  const day: Array<{ status: string; n: string }> = await db('deliveries').where({ account_id: accountId }).andWhereRaw(`finished_at > now() - interval '24 hours'`).whereIn('status', ['completed', 'failed']).groupBy('status').select('status').count({ n: '*' }) as never;
  const byStatus = Object.fromEntries(['queued', 'claimed', 'completed', 'failed', 'canceled'].map((s) => [s, Number(counts.find((c) => c.status === s)?.n ?? 0)]));
  const done24 = Object.fromEntries(day.map((d) => [d.status, Number(d.n)]));
  const finished = (done24.completed ?? 0) + (done24.failed ?? 0);
  return {
    byStatus,
    oldestQueuedAgeSec: oldest?.at ? Math.max(0, Math.round((Date.now() - new Date(oldest.at).getTime()) / 1000)) : null,
    last24h: { completed: done24.completed ?? 0, failed: done24.failed ?? 0, failureRate: finished ? Math.round(((done24.failed ?? 0) / finished) * 1000) / 1000 : 0 },
  };
}

export function deliveryView(d: DeliveryRow) {
  return {
    deliveryId: d.id, eventId: d.event_id, subscriptionId: d.subscription_id, rootId: d.root_id, parentId: d.parent_id, attempt: d.attempt,
    status: d.status, nextAttemptAt: iso(d.next_attempt_at), leaseExpiresAt: iso(d.lease_expires_at), claimedBy: d.claimed_by,
    responseStatus: d.response_status, responseExcerpt: d.response_excerpt, error: d.error, metadata: d.metadata,
    createdAt: iso(d.created_at), updatedAt: iso(d.updated_at), finishedAt: iso(d.finished_at),
  };
}
