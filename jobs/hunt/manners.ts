import { createHash } from 'node:crypto';
import CachePolicy from 'http-cache-semantics';
import robotsParser from 'robots-parser';
import type { Deps } from '../../shared/deps.js';
import { egressFetch } from '../../shared/http/egress.js';
import { cachedPage, refreshPolicy, storePage } from './manners-repository.js';
import { checkReadableUrl, fetchPage, PageReadError, type FetchedPage, type PageFetchOptions } from './page-fetch.js';

/**
 * How hunt behaves on other people's sites (issue 34): it says who it is (a user agent with a contact URL), reads
 * robots.txt and never requests what it forbids for that agent, spaces its requests to one host by at least
 * HUNT_HOST_INTERVAL_MS (or the Crawl-delay robots.txt asks) across every process, and revalidates pages it read
 * before (ETag / Last-Modified) instead of downloading them again.
 */

/** The product token robots.txt groups are matched against. */
export const ROBOTS_AGENT = 'awp-hunt';
export const userAgent = (deps: Pick<Deps, 'config'>) => `${ROBOTS_AGENT}/1.0 (+${deps.config.HUNT_CONTACT_URL})`;

type MannerDeps = Pick<Deps, 'db' | 'redis' | 'config'>;

const ROBOTS_TTL_S = 3600;
const ROBOTS_MAX_BYTES = 512 * 1024;
const key = (deps: Pick<Deps, 'config'>, what: string) => `${deps.config.QUEUE_PREFIX}:hunt:${what}`;
/** Waits `ms`; an abort rejects at once with the signal's own reason (a step's cancel surfaces unchanged). */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const onAbort = () => (clearTimeout(t), reject(signal!.reason));
    const t = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * The robots.txt of an origin as hunt judges it, cached in Redis per origin for an hour (shared by every process):
 * RFC 9309 — a 4xx means no rules (everything allowed), a 5xx or no answer means everything is disallowed until it
 * can be read. `ALLOW_ALL` / `DENY_ALL` stand for those two.
 */
const ALLOW_ALL = '';
const DENY_ALL = 'User-agent: *\nDisallow: /';

const MAX_ROBOTS_REDIRECTS = 5;

/**
 * robots.txt as RFC 9309 reads it: redirects followed (five at most, each hop checked like a page), a 2xx its
 * rules, a 4xx (or too many redirects) none, a 5xx everything forbidden. A network failure rejects (the caller
 * forbids everything).
 */
async function readRobots(deps: MannerDeps, url: string, signal?: AbortSignal): Promise<string> {
  let current = url;
  for (let hop = 0; hop <= MAX_ROBOTS_REDIRECTS; hop++) {
    await spaceRequests(deps, new URL(current).host, signal);
    const res = await egressFetch(deps.config.AWP_ALLOW_PRIVATE_EGRESS, current, {
      headers: { 'user-agent': userAgent(deps), accept: 'text/plain,*/*;q=0.1' },
      timeoutMs: Math.min(deps.config.WEB_PAGE_TIMEOUT_MS, 10_000),
      maxBytes: ROBOTS_MAX_BYTES,
      signal,
    });
    if (res.status >= 300 && res.status < 400 && res.headers.location) {
      current = checkReadableUrl(
        new URL(res.headers.location, current).href,
        deps.config.AWP_ALLOW_PRIVATE_EGRESS,
      ).href;
      continue;
    }
    return res.status >= 200 && res.status < 300 ? res.text : res.status >= 500 ? DENY_ALL : ALLOW_ALL;
  }
  return ALLOW_ALL;
}

async function robotsText(deps: MannerDeps, origin: string, signal?: AbortSignal): Promise<string> {
  const k = key(deps, `robots:${origin}`);
  const cached = await deps.redis.get(k);
  if (cached !== null) return cached;
  let text: string;
  try {
    text = await readRobots(deps, `${origin}/robots.txt`, signal);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    text = DENY_ALL;
  }
  await deps.redis.set(k, text, 'EX', text === DENY_ALL ? 300 : ROBOTS_TTL_S);
  return text;
}

/** Whether hunt may read `url`, and the Crawl-delay (ms) robots.txt asks of it. */
export async function robotsVerdict(
  deps: MannerDeps,
  url: string,
  signal?: AbortSignal,
): Promise<{ allowed: boolean; crawlDelayMs: number | null }> {
  const origin = new URL(url).origin;
  const robots = robotsParser(`${origin}/robots.txt`, await robotsText(deps, origin, signal));
  const delay = robots.getCrawlDelay(ROBOTS_AGENT);
  return {
    allowed: robots.isAllowed(url, ROBOTS_AGENT) !== false,
    crawlDelayMs: typeof delay === 'number' && delay > 0 ? Math.min(delay, 60) * 1000 : null,
  };
}

/**
 * Reserves the next slot to request `host`: each caller, in any process, gets a time at least the interval after the
 * previous one (one Lua step in Redis), then waits for it.
 */
const NEXT_SLOT = `
local now = tonumber(ARGV[1])
local gap = tonumber(ARGV[2])
local at = tonumber(redis.call('GET', KEYS[1]) or '0')
if at < now then at = now end
redis.call('SET', KEYS[1], at + gap, 'PX', gap + 60000)
return at - now`;

/**
 * Waits for the next turn of `name` (a host, a provider), `gapMs` after the previous one, in any process; resolves
 * with how long it waited (ms).
 */
export async function waitTurn(
  deps: Pick<Deps, 'redis' | 'config'>,
  name: string,
  gapMs: number,
  signal?: AbortSignal,
): Promise<number> {
  if (gapMs <= 0) return 0;
  const wait = Number(
    await deps.redis.eval(NEXT_SLOT, 1, key(deps, `turn:${name}`), String(Date.now()), String(gapMs)),
  );
  if (wait > 0) await sleep(wait, signal);
  return wait;
}

export async function spaceRequests(deps: MannerDeps, host: string, signal?: AbortSignal, gapMs?: number) {
  await waitTurn(deps, `host:${host}`, Math.max(gapMs ?? 0, deps.config.HUNT_HOST_INTERVAL_MS), signal);
}

/** Before each request of a page (each redirect hop too): robots.txt allows it, and its host's turn has come. */
export async function politeHop(deps: MannerDeps, url: string, signal?: AbortSignal): Promise<void> {
  const verdict = await robotsVerdict(deps, url, signal);
  if (!verdict.allowed)
    throw new PageReadError('robots', `robots.txt of ${new URL(url).host} does not allow ${ROBOTS_AGENT} to read it`);
  await spaceRequests(deps, new URL(url).host, signal, verdict.crawlDelayMs ?? undefined);
}

const hashOf = (url: string) => createHash('sha256').update(url).digest('hex');
const cacheRequest = (url: string, accept: string) => ({ url, method: 'GET', headers: { accept } });

/**
 * A page read politely, through the HTTP cache: a stored page still fresh is answered without a request; a stale one
 * is revalidated (If-None-Match / If-Modified-Since) and a 304 answers the stored body; a new 200 is stored when its
 * headers allow. `cache` says which happened.
 */
export async function politeFetch(
  deps: MannerDeps,
  url: string,
  opts: Omit<PageFetchOptions, 'beforeHop' | 'userAgent'>,
): Promise<FetchedPage & { cache: 'fresh' | 'revalidated' | 'stored' | null }> {
  const maxRows = deps.config.HUNT_HTTP_CACHE_MAX_ROWS;
  const req = cacheRequest(url, opts.accept);
  const stored = maxRows > 0 ? await cachedPage(deps.db, hashOf(url)) : null;
  const policy = stored
    ? CachePolicy.fromObject(stored.policy as unknown as Parameters<typeof CachePolicy.fromObject>[0])
    : null;
  const fromStore = (status: number): FetchedPage => ({
    requestedUrl: url,
    url: stored!.url,
    status,
    contentType: stored!.content_type,
    body: Buffer.from(stored!.body),
    headers: {},
    fetchedAt: new Date().toISOString(),
    ms: 0,
  });
  if (stored && policy?.satisfiesWithoutRevalidation(req)) {
    // Fresh by its own headers: no request at all, but robots.txt is still asked (it may have changed its mind).
    if (!(await robotsVerdict(deps, url, opts.signal)).allowed)
      throw new PageReadError('robots', `robots.txt of ${new URL(url).host} does not allow ${ROBOTS_AGENT} to read it`);
    return { ...fromStore(stored.status), cache: 'fresh' };
  }
  const conditional = policy ? (policy.revalidationHeaders(req) as Record<string, string>) : {};
  const page = await fetchPage(url, {
    ...opts,
    userAgent: userAgent(deps),
    headers: Object.fromEntries(
      Object.entries(conditional).filter(([k]) => k === 'if-none-match' || k === 'if-modified-since'),
    ),
    beforeHop: (hop) => politeHop(deps, hop, opts.signal),
  });
  const res = { status: page.status, headers: page.headers };
  if (stored && policy && page.status === 304) {
    const { policy: renewed } = policy.revalidatedPolicy(req, res);
    await refreshPolicy(deps.db, stored.url_hash, renewed.toObject() as unknown as Record<string, unknown>);
    return { ...fromStore(stored.status), cache: 'revalidated' };
  }
  const fresh = new CachePolicy(req, res, { shared: false });
  const validators = Boolean(page.headers.etag || page.headers['last-modified']);
  if (maxRows > 0 && page.status === 200 && fresh.storable() && (validators || fresh.timeToLive() > 0)) {
    await storePage(
      deps.db,
      {
        url_hash: hashOf(url),
        url: page.url,
        policy: fresh.toObject() as unknown as Record<string, unknown>,
        status: page.status,
        content_type: page.contentType,
        body: page.body,
      },
      maxRows,
    );
    return { ...page, cache: 'stored' };
  }
  return { ...page, cache: null };
}
