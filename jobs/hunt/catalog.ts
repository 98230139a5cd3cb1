import { parse as parseCsv } from 'csv-parse/sync';
import type { Deps } from '../../shared/deps.js';
import { insertListings, listListings } from './catalog-repository.js';
import { iso } from '../../shared/db/knex.js';
import { invalidPayload } from '../../shared/errors.js';
import { Listing, type CatalogImport } from '../../shared/schemas/hunt.js';
import { check } from '../../shared/validation.js';

const NUMERIC = new Set(['price', 'fees']);
const MAX_ROWS = 5000;

/** CSV rows → listing objects: numbers parsed, tags split on `;`, empty cells dropped. */
function csvListings(csv: string): unknown[] {
  let records: Record<string, string>[];
  try {
    records = parseCsv(csv, { columns: true, skip_empty_lines: true, trim: true });
  } catch (err) {
    throw invalidPayload(`CSV could not be parsed: ${(err as Error).message}`);
  }
  return records.map((rec) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(rec)) {
      if (v === '') continue;
      out[k] = NUMERIC.has(k)
        ? Number.isFinite(Number(v))
          ? Number(v)
          : v
        : k === 'tags'
          ? v
              .split(';')
              .map((t) => t.trim())
              .filter(Boolean)
          : v;
    }
    return out;
  });
}

/**
 * Imports listings (JSON or CSV) into the account's catalog: every row is checked first, then all are written in one
 * transaction, or none.
 */
export async function importCatalog(deps: Pick<Deps, 'db'>, accountId: string, body: CatalogImport): Promise<string[]> {
  if (Boolean(body.listings) === Boolean(body.csv)) throw invalidPayload('Send exactly one of listings or csv');
  const raw = body.listings ?? csvListings(body.csv!);
  if (raw.length === 0) throw invalidPayload('No rows to import');
  if (raw.length > MAX_ROWS) throw invalidPayload(`At most ${MAX_ROWS} rows per import`);
  const rejected = raw
    .map((row, i) => ({ row: i + 1, errors: check(Listing, row) }))
    .filter((x) => x.errors.length > 0);
  if (rejected.length > 0)
    throw invalidPayload(`${rejected.length} of ${raw.length} rows are invalid; nothing was imported`, {
      rejected: rejected.slice(0, 100),
    });
  return deps.db.transaction((trx) => insertListings(trx, accountId, raw as Listing[]));
}

/** One page of the account's catalog in the API's shape (money in major units). */
export async function catalogPage(deps: Pick<Deps, 'db'>, accountId: string, limit: number, cursor?: string) {
  const page = await listListings(deps.db, accountId, limit, cursor);
  return {
    listings: page.rows.map((l) => ({
      listingId: l.id,
      title: l.title,
      price: l.price_minor / 100,
      fees: l.fees_minor / 100,
      currency: l.currency,
      vendor: l.vendor,
      url: l.url,
      location: l.location,
      tags: l.tags,
      createdAt: iso(l.created_at),
    })),
    nextCursor: page.nextCursor,
  };
}
