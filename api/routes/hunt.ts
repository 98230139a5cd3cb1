import { Type } from '@sinclair/typebox';
import { parse as parseCsv } from 'csv-parse/sync';
import { huntSearch } from '../../jobs/hunt/search.js';
import { insertListings, listListings } from '../../shared/db/catalog.js';
import { invalidPayload } from '../../shared/errors.js';
import { iso } from '../../shared/db/knex.js';
import { BudgetUsd } from '../../shared/schemas/orchestrator.js';
import { CatalogImport, HuntSearchResult, Listing } from '../../shared/schemas/hunt.js';
import { check } from '../../shared/validation.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';

const r = routeGroup('hunt', { read: ['tools:use'], write: ['tools:use'], domain: 'hunt' });

export const HuntSearchRequest = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 1000 }),
    sources: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 })),
    budget: Type.Optional(BudgetUsd),
    location: Type.Optional(Type.String({ maxLength: 300 })),
    taskId: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { $id: 'HuntSearchRequest', additionalProperties: true },
);

const NUMERIC = new Set(['price', 'fees']);

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
      out[k] = NUMERIC.has(k) ? (Number.isFinite(Number(v)) ? Number(v) : v) : k === 'tags' ? v.split(';').map((t) => t.trim()).filter(Boolean) : v;
    }
    return out;
  });
}

export const routes = [
  r.post('/v1/hunt/search', 'Source-bound discovery of candidates', {
    body: HuntSearchRequest, response: { 200: HuntSearchResult }, countsAsWorkflow: true, mcpTool: 'hunt.search',
    handler: async ({ body, principal }, deps) => {
      const result = await huntSearch(deps, principal!.accountId, [body.query, body.location].filter(Boolean).join(' '), { sources: body.sources, budgetUsd: body.budget?.maxUsd ?? null, cheapestFirst: /cheap/i.test(body.query) });
      return { ok: true, candidates: result.candidates, sourceTelemetry: result.sourceTelemetry };
    },
  }),
  r.post('/v1/hunt/catalog/import', 'Import listings (JSON or CSV) into the catalog source; all rows or none', {
    description: 'Send `listings` (array of CatalogListing) or `csv` (header row with the same field names; tags separated by `;`). Any invalid row rejects the whole import with 400 and the reasons per row.',
    body: CatalogImport,
    handler: async ({ body, principal }, deps) => {
      if (Boolean(body.listings) === Boolean(body.csv)) throw invalidPayload('Send exactly one of listings or csv');
      const raw = body.listings ?? csvListings(body.csv!);
      if (raw.length === 0) throw invalidPayload('No rows to import');
      if (raw.length > 5000) throw invalidPayload('At most 5000 rows per import');
      const rejected = raw.map((row, i) => ({ row: i + 1, errors: check(Listing, row) })).filter((x) => x.errors.length > 0);
      if (rejected.length > 0) throw invalidPayload(`${rejected.length} of ${raw.length} rows are invalid; nothing was imported`, { rejected: rejected.slice(0, 100) });
      const ids = await deps.db.transaction((trx) => insertListings(trx, principal!.accountId, raw as never));
      return new Reply(201, { ok: true, imported: ids.length, listingIds: ids });
    },
  }),
  r.get('/v1/hunt/catalog', 'List the catalog listings of the current client', {
    list: true,
    handler: async ({ query, principal }, deps) => {
      const page = await listListings(deps.db, principal!.accountId, Number(query.limit ?? 50), query.cursor as string | undefined);
      return {
        ok: true,
        listings: page.rows.map((l) => ({ listingId: l.id, title: l.title, price: l.price_minor / 100, fees: l.fees_minor / 100, currency: l.currency, vendor: l.vendor, url: l.url, location: l.location, tags: l.tags, createdAt: iso(l.created_at) })),
        nextCursor: page.nextCursor,
      };
    },
  }),
];
