import { Type } from '@sinclair/typebox';
import { routeGroup, toolsGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';
import { ToolsMapRequest } from '../../shared/schemas/bridge.js';
import { CatalogImport, HuntSearchResult } from '../../shared/schemas/hunt.js';
import { BudgetUsd } from '../../shared/schemas/orchestrator.js';
import { catalogPage, importCatalog } from './catalog.js';
import { huntSearch } from './search.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('hunt', scopes);
const tools = toolsGroup;

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

export const routes = [
  r.post('/v1/hunt/search', 'Source-bound discovery of candidates', {
    body: HuntSearchRequest, response: { 200: HuntSearchResult }, countsAsWorkflow: true, mcpTool: 'hunt.search',
    handler: async ({ body, principal }, deps) => {
      const result = await huntSearch(deps, principal.accountId, [body.query, body.location].filter(Boolean).join(' '), { sources: body.sources, budgetUsd: body.budget?.maxUsd ?? null, cheapestFirst: /cheap/i.test(body.query) });
      return { ok: true, candidates: result.candidates, sourceTelemetry: result.sourceTelemetry };
    },
  }),
  r.post('/v1/hunt/catalog/import', 'Import listings (JSON or CSV) into the catalog source; all rows or none', {
    description: 'Send `listings` (array of CatalogListing) or `csv` (header row with the same field names; tags separated by `;`). Any invalid row rejects the whole import with 400 and the reasons per row.',
    body: CatalogImport, mcpTool: 'hunt.importCatalog',
    handler: async ({ body, principal }, deps) => {
      const ids = await importCatalog(deps, principal.accountId, body);
      return new Reply(201, { ok: true, imported: ids.length, listingIds: ids });
    },
  }),
  r.get('/v1/hunt/catalog', 'List the catalog listings of the current client', {
    list: true, mcpTool: 'hunt.listCatalog',
    handler: async ({ query, principal }, deps) => ({ ok: true, ...(await catalogPage(deps, principal.accountId, Number(query.limit ?? 50), query.cursor as string | undefined)) }),
  }),
  tools.post('/v1/tools/imageReader', 'Read image attachments, return evidence signals', { pendingIssue: 11 }),
  tools.post('/v1/tools/browserReader', 'Prepare or execute headless source reads', { pendingIssue: 11 }),
  tools.post('/v1/tools/map', 'Place candidates with name, address, rating, distance', { body: ToolsMapRequest, countsAsWorkflow: true, mcpTool: 'tools.map', pendingIssue: 11 }),
];
