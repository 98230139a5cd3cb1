import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local search providers shaped as each documents its answers, for hunt's search sources (issue 34):
 * - SearXNG: `GET /search?q=…&format=json` → `{ query, number_of_results, results: [{ url, title, content, engine,
 *   engines, score, category, … }], answers, suggestions, unresponsive_engines }`; a format that is not enabled is
 *   403, as an instance without `json` in `search.formats` answers.
 * - Brave Search: `GET /res/v1/web/search?q=…` with `X-Subscription-Token` → `{ type: "search", query, web: { type:
 *   "search", results: [{ title, url, description, profile, meta_url, … }] } }`; a wrong token 401 and a rate limit
 *   429, both as `{ type: "ErrorResponse", error: { status, code, detail } }`, the 429 with `X-RateLimit-*` headers.
 * - SerpAPI: `GET /search?engine=google_shopping&q=…&api_key=…&output=json` (what the official client sends) →
 *   `{ search_metadata, search_parameters, shopping_results: [{ position, title, link, product_link, source, price,
 *   extracted_price, … }] }`; a wrong key 401 `{ error: "Invalid API key…" }`, 429 `{ error: "…run out of searches" }`.
 * Each records what it was asked, and `failNext` queues answers it gives before the normal ones (a 429 with its
 * Retry-After, a 401).
 */

export interface FakeResult {
  url: string;
  title: string;
  snippet?: string;
  price?: string;
}

export interface Canned {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

export interface SearchFake {
  url: string;
  requests: Array<{ path: string; query: Record<string, string>; headers: http.IncomingHttpHeaders }>;
  results: FakeResult[];
  failNext: Canned[];
  stop(): Promise<void>;
}

type Answer = (q: Record<string, string>, req: http.IncomingMessage, fake: SearchFake) => Canned;

async function serve(answer: Answer, results: FakeResult[]): Promise<SearchFake> {
  const fake: SearchFake = { url: '', requests: [], results, failNext: [], stop: async () => undefined };
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(u.searchParams);
    fake.requests.push({ path: u.pathname, query, headers: req.headers });
    const canned = fake.failNext.shift() ?? answer(query, req, fake);
    res.writeHead(canned.status, { 'content-type': 'application/json', ...canned.headers });
    res.end(JSON.stringify(canned.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.stop = () => {
    server.closeAllConnections();
    return new Promise((r) => server.close(() => r()));
  };
  return fake;
}

export function startSearxng(results: FakeResult[]): Promise<SearchFake> {
  return serve((q, req) => {
    if (new URL(req.url ?? '/', 'http://fake').pathname !== '/search') return { status: 404, body: {} };
    if (q.format !== 'json') return { status: 403, body: 'Forbidden' };
    return {
      status: 200,
      body: {
        query: q.q,
        number_of_results: 0,
        results: results.map((r, i) => ({
          url: r.url,
          title: r.title,
          content: r.snippet ?? '',
          engine: 'duckduckgo',
          engines: ['duckduckgo', 'brave'],
          positions: [i + 1],
          score: 2 / (i + 1),
          category: 'general',
          parsed_url: ['http', new URL(r.url).host, new URL(r.url).pathname, '', '', ''],
        })),
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      },
    };
  }, results);
}

export const BRAVE_RATE_LIMITED: Canned = {
  status: 429,
  headers: { 'x-ratelimit-limit': '1, 15000', 'x-ratelimit-remaining': '0, 14990', 'x-ratelimit-reset': '1, 1419704' },
  body: {
    type: 'ErrorResponse',
    error: { id: 'c7b1', status: 429, code: 'RATE_LIMITED', detail: 'Request rate limit exceeded for plan.' },
    time: 1732611600,
  },
};

export function startBrave(results: FakeResult[], token: string): Promise<SearchFake> {
  return serve((q, req) => {
    if (req.headers['x-subscription-token'] !== token)
      return {
        status: 401,
        body: {
          type: 'ErrorResponse',
          error: {
            id: 'a1',
            status: 401,
            code: 'SUBSCRIPTION_TOKEN_INVALID',
            detail: 'The provided subscription token is invalid.',
          },
          time: 1732611600,
        },
      };
    return {
      status: 200,
      headers: { 'x-ratelimit-limit': '1, 15000', 'x-ratelimit-remaining': '0, 14999' },
      body: {
        type: 'search',
        query: { original: q.q, show_strict_warning: false, more_results_available: false },
        web: {
          type: 'search',
          family_friendly: true,
          results: results.map((r) => ({
            type: 'search_result',
            subtype: 'generic',
            title: r.title,
            url: r.url,
            description: r.snippet ?? '',
            is_source_local: false,
            is_source_both: false,
            language: 'en',
            family_friendly: true,
            profile: { name: new URL(r.url).host, url: r.url, long_name: new URL(r.url).host },
            meta_url: { scheme: 'http', netloc: new URL(r.url).host, hostname: '127.0.0.1', path: '› drills' },
          })),
        },
      },
    };
  }, results);
}

export function startSerpApi(results: FakeResult[], apiKey: string): Promise<SearchFake> {
  return serve((q) => {
    if (q.api_key !== apiKey)
      return {
        status: 401,
        body: { error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' },
      };
    return {
      status: 200,
      body: {
        search_metadata: { id: '6745a1', status: 'Success', total_time_taken: 1.02 },
        search_parameters: { engine: 'google_shopping', q: q.q, google_domain: 'google.com', device: 'desktop' },
        shopping_results: results.map((r, i) => ({
          position: i + 1,
          title: r.title,
          link: r.url,
          product_link: `https://www.google.com/shopping/product/${1000 + i}`,
          product_id: String(1000 + i),
          source: new URL(r.url).host,
          price: r.price ?? '€0.00',
          extracted_price: Number((r.price ?? '0').replace(/[^\d.]/g, '')),
          delivery: 'Free delivery',
        })),
      },
    };
  }, results);
}
