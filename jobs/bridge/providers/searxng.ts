/**
 * SearXNG (issue 34), a self-hosted metasearch instance: `search.web` asks `GET {endpoint}/search?q=…&format=json`
 * (the JSON output format must be enabled in the instance's settings.yml, `search.formats`). The JSON answer is
 * `{ query, number_of_results, results: [{ url, title, content, engine, … }], … }`. SearXNG has no API key of its
 * own; an instance behind a reverse proxy that asks for one gets the connector's credential as a bearer token or
 * basic auth. SearXNG publishes no SDK, so this is a small client over the egress client.
 */
import { egressFetch, EgressRefused } from '../../../shared/http/egress.js';
import type { ProviderAdapter, ProviderCallContext, ProviderResult } from './adapter.js';
import { failed, hits, httpFailure, searchInput, succeeded, text, type SearchHit } from './search-common.js';

async function search(input: Record<string, unknown>, ctx: ProviderCallContext): Promise<ProviderResult> {
  let q;
  try {
    q = searchInput(input);
  } catch (err) {
    return failed('invalidInput', (err as Error).message, false);
  }
  const url = new URL(`${ctx.connector.endpoint.replace(/\/+$/, '')}/search`);
  url.search = new URLSearchParams({ q: q.query, format: 'json', categories: 'general', safesearch: '1' }).toString();
  const headers: Record<string, string> = { accept: 'application/json' };
  const type = ctx.connector.credential?.type;
  if (ctx.secret)
    headers.authorization =
      type === 'basic' ? `Basic ${Buffer.from(ctx.secret).toString('base64')}` : `Bearer ${ctx.secret}`;
  let res;
  try {
    res = await egressFetch(ctx.deps.config.AWP_ALLOW_PRIVATE_EGRESS, url.href, {
      headers,
      signal: ctx.signal,
      timeoutMs: 15_000,
      maxBytes: 2 * 1024 * 1024,
      oversize: 'refuse',
    });
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    if (err instanceof EgressRefused) return failed('egressRefused', `SearXNG endpoint refused: ${err.message}`, false);
    return failed('connection', 'SearXNG could not be reached', true);
  }
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

export const searxngAdapter: ProviderAdapter = {
  kind: 'searxng',
  capabilities: ['search.web'],
  async call(capability, input, ctx) {
    if (capability !== 'search.web') throw new TypeError(`searxng does not do ${capability}`);
    return search(input, ctx);
  },
};
