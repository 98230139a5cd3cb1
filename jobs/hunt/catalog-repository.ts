import type { Db } from '../../shared/db/knex.js';
import { newId } from '../../shared/ids.js';
import { page } from '../../shared/db/page.js';
import type { Listing, ListingRow } from '../../shared/schemas/hunt.js';

const toMinor = (amount: number) => Math.round(amount * 100);

export async function insertListings(trx: Db, accountId: string, listings: Listing[]): Promise<string[]> {
  const rows = listings.map((l) => ({
    id: newId('lst'),
    account_id: accountId,
    title: l.title,
    description: l.description ?? '',
    price_minor: toMinor(l.price),
    fees_minor: toMinor(l.fees ?? 0),
    currency: l.currency ?? 'USD',
    vendor: l.vendor ?? null,
    url: l.url ?? null,
    location: l.location ?? null,
    tags: l.tags ?? [],
  }));
  for (let i = 0; i < rows.length; i += 500) await trx('catalog_listings').insert(rows.slice(i, i + 500));
  return rows.map((r) => r.id);
}

const COLUMNS = 'id, title, price_minor, fees_minor, currency, vendor, url';

/**
 * Full-text search over an account's listings. Every term must match first
 * (websearch semantics); when nothing does, any term may (OR), so a long
 * natural-language request still finds the listings it names.
 */
export async function searchListings(
  db: Db,
  accountId: string,
  terms: string,
  limit = 20,
): Promise<{ rows: ListingRow[]; mode: 'all' | 'any' | 'none' }> {
  if (!terms.trim()) return { rows: [], mode: 'none' };
  const all = await db.raw(
    `SELECT ${COLUMNS}, ts_rank(search, q) AS rank FROM catalog_listings, websearch_to_tsquery('english', ?) q
     WHERE account_id = ? AND search @@ q ORDER BY rank DESC, price_minor ASC LIMIT ?`,
    [terms, accountId, limit],
  );
  if (all.rows.length > 0) return { rows: all.rows, mode: 'all' };
  const any = await db.raw(
    `SELECT ${COLUMNS}, ts_rank(search, qq.q) AS rank
     FROM catalog_listings, (SELECT NULLIF(replace(plainto_tsquery('english', ?)::text, '&', '|'), '')::tsquery AS q) qq
     WHERE account_id = ? AND search @@ qq.q ORDER BY rank DESC, price_minor ASC LIMIT ?`,
    [terms, accountId, limit],
  );
  return { rows: any.rows, mode: any.rows.length > 0 ? 'any' : 'none' };
}

export async function listListings(db: Db, accountId: string, limit: number, cursor?: string) {
  const q = db('catalog_listings')
    .where({ account_id: accountId })
    .select('id', 'title', 'price_minor', 'fees_minor', 'currency', 'vendor', 'url', 'location', 'tags', 'created_at');
  return page<{
    id: string;
    title: string;
    price_minor: number;
    fees_minor: number;
    currency: string;
    vendor: string | null;
    url: string | null;
    location: string | null;
    tags: string[];
    created_at: Date;
  }>(q as never, limit, cursor);
}

/**
 * One listing of the account, with the text it was listed with (pay checks a chosen candidate's fees and stock against
 * it).
 */
export async function getListing(
  db: Db,
  accountId: string,
  id: string,
): Promise<{
  id: string;
  title: string;
  description: string;
  tags: string[];
  fees_minor: number;
  price_minor: number;
  currency: string;
  url: string | null;
} | null> {
  return (
    (await db('catalog_listings')
      .where({ id, account_id: accountId })
      .first('id', 'title', 'description', 'tags', 'fees_minor', 'price_minor', 'currency', 'url')) ?? null
  );
}
