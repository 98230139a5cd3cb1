import type { Knex } from 'knex';
import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

export interface SubscriptionRow {
  id: string;
  account_id: string;
  endpoint: string;
  events: string[];
  status: 'active' | 'paused' | 'disabled';
  mode: 'push' | 'pull';
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  description: string | null;
  failing_since: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Fields a subscription update may write; absent ones stay as they are. */
export interface SubscriptionChange {
  status?: SubscriptionRow['status'];
  disabledReason?: string | null;
  clearFailing?: boolean;
  events?: string[];
  endpoint?: string;
  description?: string | null;
  /** A new secret; the current one keeps signing for `previousValidHours`. */
  rotate?: { secret: string; previousSecret: string; previousValidHours: number };
}

export async function getSubscription(
  db: Db,
  accountId: string,
  id: string,
  forUpdate = false,
): Promise<SubscriptionRow | null> {
  const q = db('subscriptions').where({ id, account_id: accountId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

/** Locks a subscription by id alone (the ledger acts across accounts). */
export async function lockSubscription(trx: Db, id: string): Promise<SubscriptionRow | null> {
  return (await trx('subscriptions').where({ id }).forUpdate().first()) ?? null;
}

export async function insertSubscription(
  db: Db,
  row: {
    id: string;
    account_id: string;
    endpoint: string;
    events: string[];
    secret: string;
    description: string | null;
    mode: SubscriptionRow['mode'];
  },
): Promise<SubscriptionRow> {
  const [created] = await db('subscriptions').insert(row).returning('*');
  return created;
}

export async function listSubscriptions(
  db: Knex,
  accountId: string,
  limit: number,
  cursor?: string,
): Promise<{ rows: SubscriptionRow[]; nextCursor: string | null }> {
  return page<SubscriptionRow>(db('subscriptions').where({ account_id: accountId }), limit, cursor);
}

export async function subscriptionsByIds(db: Db, ids: string[]): Promise<SubscriptionRow[]> {
  if (ids.length === 0) return [];
  return db('subscriptions').whereIn('id', ids);
}

export async function updateSubscription(db: Db, id: string, change: SubscriptionChange): Promise<SubscriptionRow> {
  const patch: Record<string, unknown> = { updated_at: db.fn.now() };
  if (change.status) patch.status = change.status;
  if (change.disabledReason !== undefined) patch.disabled_reason = change.disabledReason;
  if (change.clearFailing) patch.failing_since = null;
  if (change.events) patch.events = change.events;
  if (change.endpoint) patch.endpoint = change.endpoint;
  if (change.description !== undefined) patch.description = change.description;
  if (change.rotate) {
    Object.assign(patch, {
      secret: change.rotate.secret,
      previous_secret: change.rotate.previousSecret,
      previous_secret_expires_at: db.raw('now() + make_interval(hours => ?)', [change.rotate.previousValidHours]),
    });
  }
  const [row] = await db('subscriptions').where({ id }).update(patch).returning('*');
  return row;
}

/** Starts the failing streak unless one is running; returns the subscription as it is now. */
export async function markFailing(db: Db, id: string): Promise<SubscriptionRow | null> {
  const [row] = await db('subscriptions')
    .where({ id })
    .update({ failing_since: db.raw('coalesce(failing_since, now())') })
    .returning('*');
  return row ?? null;
}
