import type { Db } from '../../shared/db/knex.js';

/** SQL of hunt's exchange rates and HTTP cache (tables `hunt_exchange_rates`, `hunt_http_cache`). */

export interface RateRow {
  day: string;
  currency: string;
  rate: string;
  source: string;
}

/** The newest stored day of rates, or null when none was ever fetched. */
export async function newestRates(db: Db): Promise<RateRow[] | null> {
  const rows: RateRow[] = await db('hunt_exchange_rates')
    .select(db.raw("to_char(day, 'YYYY-MM-DD') as day"), 'currency', 'rate', 'source')
    .whereRaw('day = (SELECT max(day) FROM hunt_exchange_rates)');
  return rows.length > 0 ? rows : null;
}

/** One day's rates, written once (a day fetched again changes nothing). */
export async function storeRates(db: Db, rows: RateRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const written = await db('hunt_exchange_rates')
    .insert(rows)
    .onConflict(['day', 'currency'])
    .ignore()
    .returning('day');
  return written.length;
}

export interface CacheRow {
  url_hash: string;
  url: string;
  policy: Record<string, unknown>;
  status: number;
  content_type: string;
  body: Buffer;
}

export async function cachedPage(db: Db, urlHash: string): Promise<CacheRow | null> {
  return (await db('hunt_http_cache').where({ url_hash: urlHash }).first()) ?? null;
}

/** Stores (or replaces) a page, then keeps only the newest `maxRows`: the cache stays bounded. */
export async function storePage(db: Db, row: CacheRow, maxRows: number): Promise<void> {
  await db('hunt_http_cache')
    .insert({ ...row, policy: JSON.stringify(row.policy), bytes: row.body.length, stored_at: db.fn.now() })
    .onConflict('url_hash')
    .merge();
  await db.raw(
    `DELETE FROM hunt_http_cache WHERE url_hash IN (
       SELECT url_hash FROM hunt_http_cache ORDER BY stored_at DESC OFFSET ?)`,
    [maxRows],
  );
}

/** A revalidated page: its new policy, the body kept. */
export async function refreshPolicy(db: Db, urlHash: string, policy: Record<string, unknown>): Promise<void> {
  await db('hunt_http_cache')
    .where({ url_hash: urlHash })
    .update({ policy: JSON.stringify(policy), stored_at: db.fn.now() });
}
