/**
 * What the search providers (issue 34: SearXNG, Brave Search, SerpAPI) share: the `search.web` input, the answer
 * every one of them gives (candidate pages, each with the provider that found it), and how HTTP failures map
 * (401/403 the credential, 429 with Retry-After, 5xx transient).
 */
import { egressFetch, EgressRefused, type EgressResponse } from '../../../shared/http/egress.js';
import {
  failed,
  invalidInput,
  type ProviderAdapter,
  type ProviderCallContext,
  type ProviderResult,
} from './adapter.js';
import type { ProviderKind } from './kinds.js';

export interface SearchHit {
  url: string;
  title: string;
  snippet: string;
  /** A price the provider showed beside the result (SerpAPI's Google Shopping), as it wrote it; the page decides. */
  priceText?: string;
}

export interface SearchInput {
  query: string;
  count: number;
}

/** `search.web`'s input; a TypeError says what is wrong. */
export function searchInput(input: Record<string, unknown>): SearchInput {
  const query = typeof input.query === 'string' ? input.query.trim() : '';
  if (!query || query.length > 400) throw new TypeError('query is required (at most 400 characters)');
  const count = typeof input.count === 'number' && input.count >= 1 ? Math.min(Math.floor(input.count), 20) : 8;
  return { query, count };
}

/** Every adapter's failed answer (adapter.ts), offered here with the rest the search adapters share. */
export { failed };

/** Retry-After as ms: delta-seconds or an HTTP date; `fallback` when absent or unreadable. */
export function retryAfterMs(value: string | undefined, fallback: number): number {
  if (!value) return fallback;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : fallback;
}

/** A provider's refusal or failure by HTTP status, in the adapter contract's words. */
export function httpFailure(provider: string, status: number, said: string, retryAfter?: string): ProviderResult {
  const detail = said ? `: ${said.slice(0, 200)}` : '';
  if (status === 401 || status === 403)
    return failed('unauthorized', `${provider} refused the credential (HTTP ${status})${detail}`, false);
  if (status === 429)
    return failed(
      'rateLimited',
      `${provider} asked to slow down (HTTP 429)${detail}`,
      true,
      retryAfterMs(retryAfter, 60_000),
    );
  if (status >= 500) return failed('providerUnavailable', `${provider} answered HTTP ${status}`, true);
  return failed(`http${status}`, `${provider} refused the search (HTTP ${status})${detail}`, false);
}

/** Hits with an http(s) URL and a title, one per URL, at most `count`. */
export function hits(list: SearchHit[], count: number): SearchHit[] {
  const seen = new Set<string>();
  return list
    .filter((h) => /^https?:\/\//i.test(h.url) && h.title && !seen.has(h.url) && seen.add(h.url))
    .slice(0, count);
}

export const succeeded = (provider: string, query: string, found: SearchHit[]): ProviderResult => ({
  status: 'succeeded',
  providerRef: null,
  answer: { provider, query, results: found },
});

/**
 * A search provider's adapter: `search.web` only; a connector without the credential the provider needs (`credential`
 * names it) and a bad input are clear failures before anything is sent.
 */
export function searchAdapter(
  kind: ProviderKind,
  search: (q: SearchInput, ctx: ProviderCallContext) => Promise<ProviderResult>,
  credential?: string,
): ProviderAdapter {
  return {
    kind,
    capabilities: ['search.web'],
    async call(capability, input, ctx) {
      if (capability !== 'search.web') throw new TypeError(`${kind} does not do ${capability}`);
      if (credential && !ctx.secret)
        return failed('noCredential', `${kind}: the connector has no credential (${credential})`, false);
      let q;
      try {
        q = searchInput(input);
      } catch (err) {
        return invalidInput(err);
      }
      return search(q, ctx);
    },
  };
}

/**
 * `GET {endpoint}{path}?{params}` through the egress client, its answer read by `read`; a refused endpoint or no
 * connection is the adapter's failure (`provider` names it), a cancel rethrown.
 */
export async function searchGet(
  ctx: ProviderCallContext,
  request: { provider: string; path: string; params: Record<string, string>; headers: Record<string, string> },
  read: (res: EgressResponse) => ProviderResult,
): Promise<ProviderResult> {
  const url = new URL(`${ctx.connector.endpoint.replace(/\/+$/, '')}${request.path}`);
  url.search = new URLSearchParams(request.params).toString();
  let res;
  try {
    res = await egressFetch(ctx.deps.config.AWP_ALLOW_PRIVATE_EGRESS, url.href, {
      headers: { accept: 'application/json', ...request.headers },
      signal: ctx.signal,
      timeoutMs: 15_000,
      maxBytes: 2 * 1024 * 1024,
      oversize: 'refuse',
    });
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    if (err instanceof EgressRefused)
      return failed('egressRefused', `${request.provider} endpoint refused: ${err.message}`, false);
    return failed('connection', `${request.provider} could not be reached`, true);
  }
  return read(res);
}

export const text = (v: unknown) => (typeof v === 'string' ? v.replace(/<[^>]*>/g, '').trim() : '');
