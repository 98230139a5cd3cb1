import type { Db } from './knex.js';
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
  /** Queued but kept out of every claim: its subscription is paused (see holdQueued / releaseHeld). */
  held: boolean;
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

/** Fields a delivery update may write; the status rules that choose them live in the ledger service. */
export interface DeliveryChange {
  status?: DeliveryRow['status'];
  /** Sets `finished_at` to now. */
  finished?: boolean;
  /** Drops the lease token and its expiry. */
  clearLease?: boolean;
  clearClaimer?: boolean;
  /** A lease of this many seconds from now. */
  leaseSeconds?: number;
  nextAttemptAt?: string;
  nextAttemptInMs?: number;
  held?: boolean;
  responseStatus?: number | null;
  responseExcerpt?: string | null;
  error?: string | null;
  metadata?: Record<string, unknown>;
}

/**
 * A queued attempt someone may claim: not held, and (for the rare one created
 * or handed back around the moment of a pause) not of a paused subscription.
 * Claims and the dispatcher's next-due look-up share it, so neither sees a
 * held row; `NOT held` is spelled out so the partial ready index applies.
 */
const CLAIMABLE =
  `NOT held AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.id = deliveries.subscription_id AND s.status ` +
  `= 'paused')`;

/**
 * Claims up to `limit` due attempts with FOR UPDATE SKIP LOCKED, so
 * concurrent claimers never get the same row; each gets its own lease token.
 * Only attempts in the given mode qualify: the dispatcher claims `push` ones
 * across accounts (`accountId` null) and drops those of disabled
 * subscriptions when it delivers; client workers claim their account's
 * `pull` ones through the API. Attempts of paused subscriptions are held
 * and claimed by no one.
 */
export async function claimDeliveries(
  db: Db,
  opts: { accountId: string | null; mode: 'push' | 'pull'; limit: number; leaseSeconds: number; claimedBy: string },
): Promise<DeliveryRow[]> {
  const result = await db.raw(
    `WITH picked AS (
       SELECT id FROM deliveries
       WHERE status = 'queued' AND mode = ? AND next_attempt_at <= now()
           AND ${CLAIMABLE} ${opts.accountId ? 'AND account_id = ?' : ''}
       ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED)
     UPDATE deliveries d SET status = 'claimed', lease_token = 'lease_' || replace(gen_random_uuid()::text, '-', ''),
       lease_expires_at = now() + make_interval(secs => ?), claimed_by = ?, updated_at = now()
     FROM picked WHERE d.id = picked.id RETURNING d.*`,
    [opts.mode, ...(opts.accountId ? [opts.accountId] : []), opts.limit, opts.leaseSeconds, opts.claimedBy],
  );
  return result.rows;
}

/** Locks an attempt (of `accountId`'s, unless null: the dispatcher acts across accounts). */
export async function lockDelivery(trx: Db, accountId: string | null, id: string): Promise<DeliveryRow | null> {
  const q = trx('deliveries').where({ id }).forUpdate().first();
  if (accountId) q.andWhere({ account_id: accountId });
  return (await q) ?? null;
}

export async function updateDelivery(db: Db, id: string, change: DeliveryChange): Promise<DeliveryRow> {
  const patch: Record<string, unknown> = { updated_at: db.fn.now() };
  if (change.status) patch.status = change.status;
  if (change.finished) patch.finished_at = db.fn.now();
  if (change.clearLease) Object.assign(patch, { lease_token: null, lease_expires_at: null });
  if (change.clearClaimer) patch.claimed_by = null;
  if (change.leaseSeconds !== undefined)
    patch.lease_expires_at = db.raw('now() + make_interval(secs => ?)', [change.leaseSeconds]);
  if (change.nextAttemptAt !== undefined) patch.next_attempt_at = change.nextAttemptAt;
  if (change.nextAttemptInMs !== undefined)
    patch.next_attempt_at = db.raw('now() + make_interval(secs => ?)', [change.nextAttemptInMs / 1000]);
  if (change.held !== undefined) patch.held = change.held;
  if (change.responseStatus !== undefined) patch.response_status = change.responseStatus;
  if (change.responseExcerpt !== undefined) patch.response_excerpt = change.responseExcerpt;
  if (change.error !== undefined) patch.error = change.error;
  if (change.metadata) patch.metadata = JSON.stringify(change.metadata);
  const [row] = await db('deliveries').where({ id }).update(patch).returning('*');
  return row;
}

/**
 * Completes a leased attempt in one statement (the hot path of every
 * delivery): the lease checks are in its WHERE clause, and a success clears
 * the subscription's failing streak. Null when no row qualifies.
 */
export async function completeLeased(
  db: Db,
  accountId: string | null,
  id: string,
  token: string,
  fields: { responseStatus: number | null; responseExcerpt: string | null },
): Promise<DeliveryRow | null> {
  const result = await db.raw(
    `WITH done AS (
       UPDATE deliveries SET status = 'completed', finished_at = now(), updated_at = now(), lease_token = NULL,
           lease_expires_at = NULL,
         response_status = ?, response_excerpt = ?, error = NULL
       WHERE id = ? AND status = 'claimed' AND lease_token = ? AND lease_expires_at > now()
           ${accountId ? 'AND account_id = ?' : ''}
       RETURNING *),
     streak AS (UPDATE subscriptions SET failing_since = NULL WHERE id = (SELECT subscription_id FROM done)
         AND failing_since IS NOT NULL)
     SELECT * FROM done`,
    [fields.responseStatus, fields.responseExcerpt, id, token, ...(accountId ? [accountId] : [])],
  );
  return result.rows[0] ?? null;
}

/** Whether the subscription is paused now: a new attempt for it starts held. */
const heldIfPaused = (db: Db, subscriptionId: string) =>
  db.raw(`EXISTS (SELECT 1 FROM subscriptions WHERE id = ? AND status = 'paused')`, [subscriptionId]);

/** The next attempt in a chain: a new queued child row, due after `delayMs` (held while its subscription is paused). */
export async function insertChild(trx: Db, parent: DeliveryRow, delayMs: number): Promise<DeliveryRow> {
  const [row] = await trx('deliveries')
    .insert({
      id: newId('dlv'),
      account_id: parent.account_id,
      event_id: parent.event_id,
      subscription_id: parent.subscription_id,
      root_id: parent.root_id,
      parent_id: parent.id,
      attempt: parent.attempt + 1,
      status: 'queued',
      mode: parent.mode,
      next_attempt_at: trx.raw(`now() + make_interval(secs => ?)`, [delayMs / 1000]),
      held: heldIfPaused(trx, parent.subscription_id),
    })
    .returning('*');
  return row;
}

/** When the next claimable queued push attempt falls due (null when none is). */
export async function nextPushDue(db: Db): Promise<Date | null> {
  // ORDER BY … LIMIT 1 rather than min(): the first row of the ready index, not an aggregate over every queued row.
  const row = await db('deliveries')
    .where({ status: 'queued', mode: 'push' })
    .andWhereRaw(CLAIMABLE)
    .orderBy('next_attempt_at')
    .first('next_attempt_at');
  return row?.next_attempt_at ?? null;
}

/** Holds every queued attempt of a subscription that is being paused; returns how many. */
export async function holdQueued(trx: Db, subscriptionId: string): Promise<number> {
  return trx('deliveries')
    .where({ subscription_id: subscriptionId, status: 'queued', held: false })
    .update({ held: true, updated_at: trx.fn.now() });
}

/**
 * Releases the held attempts of a subscription that is being resumed. Those
 * whose event is older than `maxAgeMs` are canceled instead (queued →
 * canceled, a legal move of the ledger's table), with `reason` as their error.
 */
export async function releaseHeld(
  trx: Db,
  subscriptionId: string,
  maxAgeMs: number,
  reason: string,
): Promise<{ released: number; skipped: number }> {
  const stale = await trx.raw(
    `UPDATE deliveries d SET status = 'canceled', held = false, finished_at = now(), updated_at = now(), error = ?
     FROM events e
     WHERE d.subscription_id = ? AND d.status = 'queued' AND d.held AND e.id = d.event_id
         AND e.created_at < now() - make_interval(secs => ?)`,
    [reason, subscriptionId, maxAgeMs / 1000],
  );
  const released = await trx('deliveries')
    .where({ subscription_id: subscriptionId, status: 'queued', held: true })
    .update({ held: false, updated_at: trx.fn.now() });
  return { released, skipped: stale.rowCount ?? 0 };
}

export async function sweepExpiredLeases(db: Db, accountId: string | null): Promise<string[]> {
  const q = db('deliveries')
    .where({ status: 'claimed' })
    .andWhere('lease_expires_at', '<', db.fn.now())
    .update({ status: 'queued', lease_token: null, lease_expires_at: null, claimed_by: null, updated_at: db.fn.now() })
    .returning('id');
  if (accountId) q.andWhere({ account_id: accountId });
  return (await q).map((r: { id: string }) => r.id);
}

/** Queued attempts that are due, soonest first, without claiming them. */
/**
 * The account's attempts a client could claim now (queued, due, of a pull subscription: push attempts are the
 * dispatcher's to claim), in the order a claim takes them.
 */
export async function readyDeliveries(db: Db, accountId: string, limit: number): Promise<DeliveryRow[]> {
  return db('deliveries')
    .where({ account_id: accountId, mode: 'pull', status: 'queued' })
    .andWhere('next_attempt_at', '<=', db.fn.now())
    .andWhereRaw(CLAIMABLE)
    .orderBy('next_attempt_at')
    .limit(limit);
}

/** The first attempt of an event for a subscription (held while it is paused); null when that chain exists already. */
export async function insertRootDelivery(
  db: Db,
  row: { account_id: string; event_id: string; subscription_id: string; mode: DeliveryRow['mode'] },
): Promise<DeliveryRow | null> {
  const id = newId('dlv');
  const [created] = await db('deliveries')
    .insert({ id, root_id: id, ...row, held: heldIfPaused(db, row.subscription_id) })
    .onConflict()
    .ignore()
    .returning('*');
  return created ?? null;
}
