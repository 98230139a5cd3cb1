/**
 * SearXNG (issue 34), a self-hosted metasearch instance: `search.web` asks `GET {endpoint}/search?q=…&format=json`
 * (the JSON output format must be enabled in the instance's settings.yml, `search.formats`). The JSON answer is
 * `{ query, number_of_results, results: [{ url, title, content, engine, … }], … }`. SearXNG has no API key of its
 * own; an instance behind a reverse proxy that asks for one gets the connector's credential as a bearer token or
 * basic auth. SearXNG publishes no SDK, so this is a small client over the egress client.
 */
import type { EgressResponse } from '../../../shared/http/egress.js';
import type { ProviderAdapter, ProviderCallContext, ProviderResult } from './adapter.js';
import {
  failed,
  hits,
  httpFailure,
  searchAdapter,
  searchGet,
  succeeded,
  text,
  type SearchHit,
  type SearchInput,
} from './search-common.js';

function answer(q: SearchInput, res: EgressResponse): ProviderResult {
  if (res.status !== 200) return httpFailure('SearXNG', res.status, '', res.headers['retry-after']);
  let body: { results?: unknown };
  try {
    body = JSON.parse(res.text) as { results?: unknown };
  } catch {
    // An HTML page instead of JSON: the instance does not allow format=json.
    return failed('notJson', 'SearXNG answered without JSON: enable `json` in search.formats of settings.yml', false);
  }
  const list = (Array.isArray(body.results) ? body.results : []) as Array<Record<string, unknown>>;
  const found: SearchHit[] = list.map((r) => ({ url: text(r.url), title: text(r.title), snippet: text(r.content) }));
  return succeeded('searxng', q.query, hits(found, q.count));
}

/** The instance's own credential, if its reverse proxy asks for one: basic auth, else a bearer token. */
function authorization(ctx: ProviderCallContext): Record<string, string> {
  if (!ctx.secret) return {};
  const basic = ctx.connector.credential?.type === 'basic';
  return { authorization: basic ? `Basic ${Buffer.from(ctx.secret).toString('base64')}` : `Bearer ${ctx.secret}` };
}

export const searxngAdapter: ProviderAdapter = searchAdapter('searxng', (q, ctx) =>
  searchGet(
    ctx,
    {
      provider: 'SearXNG',
      path: '/search',
      params: { q: q.query, format: 'json', categories: 'general', safesearch: '1' },
      headers: authorization(ctx),
    },
    (res) => answer(q, res),
  ),
);
