/** Reads of the delivery ledger: an account's figures, its attempts, and a chain's or an event's attempts. */
import type { Knex } from 'knex';
import type { Db } from './knex.js';
import { page } from './page.js';
import type { DeliveryRow } from './deliveries.js';

/**
 * Raw figures of an account's ledger: attempts by status, the oldest queued (not held) due time, and last-24 h finishes
 * by status.
 */
export async function deliveryCounts(
  db: Db,
  accountId: string,
): Promise<{ byStatus: Record<string, number>; oldestQueuedAt: Date | null; finished24h: Record<string, number> }> {
  const counts: Array<{ status: string; n: string }> = (await db('deliveries')
    .where({ account_id: accountId })
    .groupBy('status')
    .select('status')
    .count({ n: '*' })) as never;
  // Held attempts wait for a resume, not for the dispatcher: they would make a healthy queue look stuck.
  const oldest = await db('deliveries')
    .where({ account_id: accountId, status: 'queued', held: false })
    .min({ at: 'next_attempt_at' })
    .first();
  const day: Array<{ status: string; n: string }> = (await db('deliveries')
    .where({ account_id: accountId })
    .andWhereRaw(`finished_at > now() - interval '24 hours'`)
    .whereIn('status', ['completed', 'failed'])
    .groupBy('status')
    .select('status')
    .count({ n: '*' })) as never;
  return {
    byStatus: Object.fromEntries(counts.map((c) => [c.status, Number(c.n)])),
    oldestQueuedAt: oldest?.at ?? null,
    finished24h: Object.fromEntries(day.map((d) => [d.status, Number(d.n)])),
  };
}

export async function getDelivery(db: Db, accountId: string, id: string): Promise<DeliveryRow | null> {
  return (await db('deliveries').where({ id, account_id: accountId }).first()) ?? null;
}

export async function listDeliveries(
  db: Knex,
  accountId: string,
  filter: { status?: string; subscriptionId?: string; eventId?: string },
  limit: number,
  cursor?: string,
): Promise<{ rows: DeliveryRow[]; nextCursor: string | null }> {
  const q = db('deliveries').where({ account_id: accountId });
  if (filter.status) q.andWhere({ status: filter.status });
  if (filter.subscriptionId) q.andWhere({ subscription_id: filter.subscriptionId });
  if (filter.eventId) q.andWhere({ event_id: filter.eventId });
  return page<DeliveryRow>(q, limit, cursor);
}
/** Every attempt of a retry chain, oldest first. */
export async function chainOf(db: Db, rootId: string): Promise<DeliveryRow[]> {
  return db('deliveries').where({ root_id: rootId }).orderBy('attempt');
}

/** An event's attempts, chain by chain. */
export async function deliveriesOfEvent(db: Db, eventId: string): Promise<DeliveryRow[]> {
  return db('deliveries')
    .where({ event_id: eventId })
    .orderBy([{ column: 'root_id' }, { column: 'attempt' }]);
}

export async function hasChild(db: Db, id: string): Promise<boolean> {
  return Boolean(await db('deliveries').where({ parent_id: id }).first('id'));
}
