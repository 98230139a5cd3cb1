import { createHash } from 'node:crypto';
import type { Deps } from '../../shared/deps.js';
import { AppError } from '../../shared/errors.js';
import { waitTurn } from './manners.js';
import { searchPlaces, type ProviderPlace, type ProviderTarget, type SearchArea } from './place-providers.js';

/**
 * The places provider asked politely (issue 34): answers kept in Redis for MAP_CACHE_SECONDS (shared by every
 * process; a question asked again is not sent again), requests to the provider spaced by its rate limit
 * (MAP_PROVIDER_INTERVAL_MS; the public Nominatim allows one a second), and a 429 whose Retry-After is short waited
 * out once. Errors are never cached.
 */

const WAIT_AT_MOST_MS = 5_000;
// A little over one a second: the provider counts arrivals, which jitter around the departures spaced here.
const DEFAULT_INTERVAL_MS = { nominatim: 1100, google: 100 } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface PlacesAnswer {
  places: ProviderPlace[];
  /** When the answer was stored, if it came from the cache. */
  cachedAt: string | null;
}

export async function politeSearchPlaces(
  deps: Pick<Deps, 'config' | 'redis'>,
  t: ProviderTarget,
  text: string,
  area?: SearchArea,
): Promise<PlacesAnswer> {
  const ttl = deps.config.MAP_CACHE_SECONDS;
  const digest = createHash('sha256')
    .update(JSON.stringify([t.provider, t.baseUrl, text, area ?? null]))
    .digest('hex');
  const key = `${deps.config.QUEUE_PREFIX}:hunt:places:${digest}`;
  if (ttl > 0) {
    const hit = await deps.redis.get(key);
    if (hit) return JSON.parse(hit) as PlacesAnswer;
  }
  const gap = deps.config.MAP_PROVIDER_INTERVAL_MS ?? DEFAULT_INTERVAL_MS[t.provider];
  const host = new URL(t.baseUrl).host;
  const ask = async () => {
    await waitTurn(deps, `map:${host}`, gap, t.signal);
    return searchPlaces(t, text, area);
  };
  let places: ProviderPlace[];
  try {
    places = await ask();
  } catch (err) {
    const wait = err instanceof AppError ? (err.details as { retryAfterMs?: number } | undefined)?.retryAfterMs : null;
    if (typeof wait !== 'number' || wait > WAIT_AT_MOST_MS) throw err;
    await sleep(wait);
    places = await ask();
  }
  if (ttl > 0) await deps.redis.set(key, JSON.stringify({ places, cachedAt: new Date().toISOString() }), 'EX', ttl);
  return { places, cachedAt: null };
}
