/**
 * Brave Search API (issue 34): `search.web` asks `GET {endpoint}/res/v1/web/search?q=…&count=…` (endpoint
 * https://api.search.brave.com) with the subscription key in `X-Subscription-Token`, as Brave documents it. The
 * answer's `web.results` are `{ title, url, description, … }`. Errors: 401/403 (a key that is wrong or lacks the
 * plan), 422 (a query it refuses), 429 with `X-RateLimit-Reset` / Retry-After (per-second or monthly quota).
 * Brave publishes no official Node SDK, so this is a small client over the egress client.
 */
import { egressFetch, EgressRefused } from '../../../shared/http/egress.js';
import type { ProviderAdapter, ProviderCallContext, ProviderResult } from './adapter.js';
import { failed, hits, httpFailure, searchInput, succeeded, text, type SearchHit } from './search-common.js';

async function search(input: Record<string, unknown>, ctx: ProviderCallContext): Promise<ProviderResult> {
  if (!ctx.secret)
    return failed('noCredential', 'brave: the connector has no credential (the subscription token)', false);
  let q;
  try {
    q = searchInput(input);
  } catch (err) {
    return failed('invalidInput', (err as Error).message, false);
  }
  const url = new URL(`${ctx.connector.endpoint.replace(/\/+$/, '')}/res/v1/web/search`);
  url.search = new URLSearchParams({ q: q.query, count: String(q.count), safesearch: 'moderate' }).toString();
  let res;
  try {
    res = await egressFetch(ctx.deps.config.AWP_ALLOW_PRIVATE_EGRESS, url.href, {
      headers: { accept: 'application/json', 'x-subscription-token': ctx.secret },
      signal: ctx.signal,
      timeoutMs: 15_000,
      maxBytes: 2 * 1024 * 1024,
      oversize: 'refuse',
    });
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    if (err instanceof EgressRefused) return failed('egressRefused', `Brave endpoint refused: ${err.message}`, false);
    return failed('connection', 'Brave Search could not be reached', true);
  }
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(res.text) as Record<string, unknown>;
  } catch {
    // The status decides.
  }
  if (res.status !== 200) {
    const error = (body.error ?? {}) as { detail?: unknown; code?: unknown };
    // Brave's 429 names when the window resets (X-RateLimit-Reset: seconds, per window, comma separated).
    const reset = res.headers['retry-after'] ?? res.headers['x-ratelimit-reset']?.split(',')[0]?.trim();
    return httpFailure('Brave Search', res.status, text(error.detail) || text(error.code), reset);
  }
  const web = (body.web ?? {}) as { results?: unknown };
  const list = (Array.isArray(web.results) ? web.results : []) as Array<Record<string, unknown>>;
  const found: SearchHit[] = list.map((r) => ({
    url: text(r.url),
    title: text(r.title),
    snippet: text(r.description),
  }));
  return succeeded('brave', q.query, hits(found, q.count));
}

export const braveAdapter: ProviderAdapter = {
  kind: 'brave',
  capabilities: ['search.web'],
  async call(capability, input, ctx) {
    if (capability !== 'search.web') throw new TypeError(`brave does not do ${capability}`);
    return search(input, ctx);
  },
};
