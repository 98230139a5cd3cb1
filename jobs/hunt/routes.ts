import { routeGroup, toolsGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';
import {
  CatalogImport,
  CatalogImported,
  CatalogPage,
  HuntSearchRequest,
  HuntSearchResult,
} from '../../shared/schemas/hunt.js';
import {
  BrowserReaderRequest,
  BrowserReaderResult,
  ImageReaderRequest,
  ImageReaderResult,
  ToolsMapRequest,
  ToolsMapResult,
} from './tools-schemas.js';
import { preparePageRead, readPage } from './browser-reader.js';
import { catalogPage, importCatalog } from './catalog.js';
import { readImages } from './image-reader.js';
import { findPlaces } from './places.js';
import { searchForClient } from './search.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('hunt', scopes);
const tools = toolsGroup;

export const routes = [
  r.post('/v1/hunt/search', 'Source-bound discovery of candidates', {
    body: HuntSearchRequest,
    response: { 200: HuntSearchResult },
    countsAsWorkflow: true,
    mcpTool: 'hunt.search',
    description:
      'Reads the catalog, and the pages in `urls` (the web source: schema.org JSON-LD, microdata, Open Graph ' +
      'product tags). A page that fails is reported in `sourceTelemetry.web`; the search answers with the ' +
      'rest.',
    handler: ({ body, principal, signal }, deps) => searchForClient(deps, principal.accountId, body, signal),
  }),
  r.post('/v1/hunt/catalog/import', 'Import listings (JSON or CSV) into the catalog source; all rows or none', {
    description:
      'Send `listings` (array of CatalogListing) or `csv` (header row with the same field names; tags ' +
      'separated by `;`). Any invalid row rejects the whole import with 400: a listing names its fields ' +
      '(`/listings/N/price`), a CSV row its number and reasons (`details.rejected`).',
    body: CatalogImport,
    mcpTool: 'hunt.importCatalog',
    response: { 201: CatalogImported },
    handler: async ({ body, principal }, deps) => {
      const ids = await importCatalog(deps, principal.accountId, body);
      return new Reply(201, { ok: true, imported: ids.length, listingIds: ids });
    },
  }),
  r.get('/v1/hunt/catalog', 'List the catalog listings of the current client', {
    list: true,
    mcpTool: 'hunt.listCatalog',
    response: { 200: CatalogPage },
    handler: async ({ query, principal }, deps) => ({
      ok: true,
      ...(await catalogPage(deps, principal.accountId, Number(query.limit ?? 50), query.cursor as string | undefined)),
    }),
  }),
  tools.post('/v1/tools/imageReader', 'Read image attachments, return evidence signals', {
    description:
      'Each attachment as base64 `data` or a `url`: format, dimensions, size, SHA-256, EXIF (camera, ' +
      'software, timestamps, GPS), XMP and IPTC, and the signals they give (editing software, edit history, ' +
      'stripped metadata, timestamps that disagree, a GPS fix, a declared type the bytes contradict), each ' +
      'with its evidence.',
    body: ImageReaderRequest,
    response: { 200: ImageReaderResult },
    mcpTool: 'tools.imageReader',
    handler: async ({ body, signal }, deps) => ({
      ok: true,
      images: await readImages(deps.config, body.attachments, signal),
    }),
  }),
  tools.post('/v1/tools/browserReader', 'Prepare or execute headless source reads', {
    description:
      '`read` fetches the page through the guarded egress client and returns its title, readable text, ' +
      'links, JSON-LD and content hash (`render: true`: from the DOM its scripts rendered, read in headless ' +
      'chromium, robots.txt honoured); `prepare` returns the plan and fetches nothing. Private addresses ' +
      'are refused (422) unless AWP_ALLOW_PRIVATE_EGRESS is set.',
    body: BrowserReaderRequest,
    response: { 200: BrowserReaderResult },
    mcpTool: 'tools.browserReader',
    handler: ({ body, signal }, deps) =>
      body.mode === 'prepare' ? preparePageRead(deps.config, body) : readPage(deps, body, signal),
  }),
  tools.post('/v1/tools/map', 'Place candidates with name, address, rating, distance', {
    description:
      'Places from the configured provider (MAP_PROVIDER: nominatim or google). `center`, `near` or "… near ' +
      '<place>" in the query sets the center distances and the radius are measured from. No provider ' +
      'configured: 422.',
    body: ToolsMapRequest,
    response: { 200: ToolsMapResult },
    countsAsWorkflow: true,
    mcpTool: 'tools.map',
    handler: ({ body, principal, signal }, deps) => findPlaces(deps, principal.accountId, body, signal),
  }),
];
