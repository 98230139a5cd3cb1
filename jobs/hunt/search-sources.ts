import type { Deps } from '../../shared/deps.js';
import { adapterFor, connectorsWithCapability, providerContextOf, type SearchHit } from '../bridge/index.js';
import { sleep } from './manners.js';
import type { PageToRead } from './web-source.js';

/**
 * Search sources (issue 34): the account's connectors of kind `searxng`, `brave` or `serpapi` with the `search.web`
 * capability are asked for candidate pages, which the web source then reads like the pages a request names. A
 * provider that asks to slow down (429) is honoured: a short Retry-After is waited out once, a longer one is kept in
 * Redis so no process asks that connector again before it has passed.
 */

export const SEARCH_CAPABILITY = 'search.web';
export const SEARCH_KINDS = ['searxng', 'brave', 'serpapi'] as const;
const MAX_SOURCES = 5;
/** A Retry-After up to this is waited out within the request; a longer one skips the source until it has passed. */
const WAIT_AT_MOST_MS = 5_000;

/** What to tell a caller whose account has no search source. */
export const CONFIGURE_SEARCH =
  'no search source is configured: register a connector of kind searxng (a SearXNG instance with format=json), ' +
  'brave (Brave Search API, X-Subscription-Token) or serpapi (SerpAPI Google Shopping) with the capability ' +
  'search.web and its key in the vault (POST /v1/bridge/credentials, then POST /v1/bridge/connectors {kind, caps: ' +
  '["search.web"], endpoint, credential}); or give product pages in `urls`';

type SearchDeps = Pick<Deps, 'db' | 'config' | 'redis' | 'log'>;

export interface Discovery {
  pages: PageToRead[];
  telemetry: Record<string, unknown>;
}

type Connector = Awaited<ReturnType<typeof connectorsWithCapability>>[number];

/** One search source asked: what it found, or why not (a refused key, a provider asking to slow down). */
async function askSource(
  deps: SearchDeps,
  accountId: string,
  connector: Connector,
  query: string,
  signal?: AbortSignal,
): Promise<{ name: string; telemetry: Record<string, unknown>; found: SearchHit[] }> {
  const name = `${connector.kind}:${connector.connector_id}`;
  const backoffKey = `${deps.config.QUEUE_PREFIX}:hunt:search-backoff:${connector.id}`;
  const resting = await deps.redis.pttl(backoffKey);
  if (resting > 0)
    return {
      name,
      found: [],
      telemetry: {
        status: 'rateLimited',
        error: 'the provider asked to slow down; not asked again before its Retry-After has passed',
        retryAfterS: Math.ceil(resting / 1000),
      },
    };
  const started = Date.now();
  const opened = await providerContextOf(
    deps,
    accountId,
    connector,
    connector.connector_id,
    connector.kind,
    'hunt.search',
  );
  if ('error' in opened)
    return { name, found: [], telemetry: { status: 'failed', code: opened.error.code, error: opened.error.message } };
  const adapter = adapterFor(connector.kind)!;
  const ask = () =>
    adapter.call(
      'search.web',
      { query, count: deps.config.HUNT_SEARCH_RESULTS },
      { ...opened.ctx, signal, idempotencyKey: `hunt.search:${connector.id}` },
    );
  let result = await ask();
  let waited = 0;
  const wait = result.error?.retryAfterMs;
  if (result.error?.code === 'rateLimited' && wait !== undefined && wait <= WAIT_AT_MOST_MS) {
    await sleep(wait, signal);
    waited = wait;
    result = await ask();
  }
  if (result.status !== 'succeeded') {
    const error = result.error!;
    if (error.code === 'rateLimited' && error.retryAfterMs)
      await deps.redis.set(backoffKey, '1', 'PX', Math.max(1, Math.min(error.retryAfterMs, 86_400_000)));
    return {
      name,
      found: [],
      telemetry: {
        status: error.code === 'rateLimited' ? 'rateLimited' : 'failed',
        code: error.code,
        error: error.message,
        ...(error.retryAfterMs !== undefined ? { retryAfterS: Math.ceil(error.retryAfterMs / 1000) } : {}),
        ms: Date.now() - started,
      },
    };
  }
  const found = (result.answer.results ?? []) as SearchHit[];
  return {
    name,
    found,
    telemetry: {
      status: 'ok',
      results: found.length,
      ...(waited ? { waitedForRetryAfterMs: waited } : {}),
      ms: Date.now() - started,
    },
  };
}

/** Candidate pages for `query` from every search source of the account, each naming who found it. */
export async function discoverPages(
  deps: SearchDeps,
  accountId: string,
  query: string,
  signal?: AbortSignal,
): Promise<Discovery> {
  const connectors = (await connectorsWithCapability(deps.db, accountId, SEARCH_CAPABILITY, MAX_SOURCES)).filter(
    (c) => c.status !== 'disabled' && (SEARCH_KINDS as readonly string[]).includes(c.kind),
  );
  if (connectors.length === 0) return { pages: [], telemetry: { status: 'unavailable', reason: CONFIGURE_SEARCH } };
  // Every source is asked at once; their finds are merged in the order of the connectors, so `foundBy` is stable.
  const answers = await Promise.all(connectors.map((c) => askSource(deps, accountId, c, query, signal)));
  const byUrl = new Map<string, PageToRead>();
  const sources: Record<string, unknown> = {};
  for (const { name, telemetry, found } of answers) {
    sources[name] = telemetry;
    for (const hit of found) {
      const page = byUrl.get(hit.url) ?? { url: hit.url, foundBy: [] };
      page.foundBy.push(name);
      byUrl.set(hit.url, page);
    }
  }
  const statuses = Object.values(sources).map((s) => (s as { status: string }).status);
  return {
    pages: [...byUrl.values()],
    telemetry: {
      status: statuses.every((s) => s === 'ok') ? 'ok' : statuses.some((s) => s === 'ok') ? 'partial' : 'failed',
      query,
      sources,
    },
  };
}
