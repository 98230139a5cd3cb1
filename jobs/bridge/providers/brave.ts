/**
 * Brave Search API (issue 34): `search.web` asks `GET {endpoint}/res/v1/web/search?q=…&count=…` (endpoint
 * https://api.search.brave.com) with the subscription key in `X-Subscription-Token`, as Brave documents it. The
 * answer's `web.results` are `{ title, url, description, … }`. Errors: 401/403 (a key that is wrong or lacks the
 * plan), 422 (a query it refuses), 429 with `X-RateLimit-Reset` / Retry-After (per-second or monthly quota).
 * Brave publishes no official Node SDK, so this is a small client over the egress client.
 */
import type { EgressResponse } from '../../../shared/http/egress.js';
import type { ProviderAdapter, ProviderResult } from './adapter.js';
import {
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

export const braveAdapter: ProviderAdapter = searchAdapter(
  'brave',
  (q, ctx) =>
    searchGet(
      ctx,
      {
        provider: 'Brave Search',
        path: '/res/v1/web/search',
        params: { q: q.query, count: String(q.count), safesearch: 'moderate' },
        headers: { 'x-subscription-token': ctx.secret! },
      },
      (res) => answer(q, res),
    ),
  'the subscription token',
);
