import { AppError, policyViolation } from '../../shared/errors.js';
import { EgressError, EgressRefused, egressFetch, type EgressResponse } from '../../shared/http/egress.js';
import { redactSecrets } from '../../shared/secrets.js';
import type { MapProvider } from './tools-schemas.js';
import { READER_USER_AGENT } from './page-fetch.js';

/**
 * The places providers behind POST /v1/tools/map, each spoken to in its own
 * API and read from its own response format: a Nominatim-compatible search
 * API (`/search?format=jsonv2`, `key` as a query parameter for hosted
 * variants that need one) and Google Places API Text Search
 * (`POST /v1/places:searchText`, key in `X-Goog-Api-Key`). Every place keeps
 * the provider's own page for it as its source.
 */

export interface ProviderPlace {
  name: string;
  address: string | null;
  rating: number | null;
  ratingCount: number | null;
  lat: number;
  lon: number;
  source: string;
  /** Contact channels the provider knows (OpenStreetMap tags `phone`, `website`, `email` and their `contact:` forms;
   * Google's phone numbers and website); null when it names none. */
  phone: string | null;
  website: string | null;
  email: string | null;
}

export interface ProviderTarget {
  provider: MapProvider;
  baseUrl: string;
  /** Never logged, echoed or put in a message (`redactSecrets` masks it in anything built from a provider's answer). */
  key: string | null;
  allowPrivate: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Sent to Nominatim, whose usage policy asks for an identifying user agent; default READER_USER_AGENT. */
  userAgent?: string;
}

export interface SearchArea {
  center: { lat: number; lon: number };
  radiusKm: number;
}

export const DEFAULT_PROVIDER_URLS: Record<MapProvider, string> = {
  nominatim: 'https://nominatim.openstreetmap.org',
  google: 'https://places.googleapis.com',
};
const LIMIT = 20;
const MAX_BYTES = 2 * 1024 * 1024;
const KM_PER_DEGREE_LAT = 111.32;

const unavailable = (message: string) => new AppError('unavailable', message);
const finite = (v: unknown): number | null => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
};

async function call(
  t: ProviderTarget,
  url: string,
  init: { method?: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
): Promise<unknown> {
  let res: EgressResponse;
  try {
    res = await egressFetch(t.allowPrivate, url, {
      ...init,
      signal: t.signal,
      timeoutMs: t.timeoutMs,
      maxBytes: MAX_BYTES,
      oversize: 'refuse',
    });
  } catch (err) {
    if (t.signal?.aborted) throw t.signal.reason;
    if (err instanceof EgressError && err.reason === 'timeout')
      throw unavailable(`the ${t.provider} places provider did not answer within ${t.timeoutMs} ms`);
    if (err instanceof EgressRefused)
      throw unavailable(
        `the ${t.provider} places provider's address is refused by the egress guard (a local provider needs ` +
          `AWP_ALLOW_PRIVATE_EGRESS)`,
      );
    throw unavailable(
      `could not reach the ${t.provider} places ` +
        `provider${err instanceof EgressError ? ' (its answer was over the size limit)' : ''}`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = undefined;
  }
  const said = (body as { error?: { message?: unknown } | string } | undefined)?.error;
  const message = redactSecrets(
    String((typeof said === 'string' ? said : said?.message) ?? '').slice(0, 300),
    t.key ? [t.key] : [],
  );
  if (res.status === 401 || res.status === 403)
    throw policyViolation(
      `the ${t.provider} places provider refused the API key (HTTP ${res.status})${message ? `: ${message}` : ''}`,
    );
  if (res.status === 429) {
    // Said with its Retry-After, so the caller can wait a short one out (jobs/hunt/places-manners.ts).
    const seconds = Number(res.headers['retry-after']);
    const retryAfterMs = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : null;
    throw new AppError(
      'unavailable',
      `the ${t.provider} places provider asked to slow down (HTTP 429)`,
      { reason: 'rateLimited', retryAfterMs },
      retryAfterMs !== null ? { 'Retry-After': String(Math.ceil(retryAfterMs / 1000)) } : undefined,
    );
  }
  if (res.status >= 500)
    throw unavailable(`the ${t.provider} places provider is not answering now (HTTP ${res.status})`);
  if (res.status >= 400 || (said && res.status === 200 && !Array.isArray(body)))
    throw policyViolation(
      `the ${t.provider} places provider refused the request (HTTP ${res.status})${message ? `: ${message}` : ''}`,
    );
  if (body === undefined)
    throw unavailable(`the ${t.provider} places provider answered with something that is not JSON`);
  return body;
}

/**
 * A square around the circle, as Nominatim's `viewbox` (left, top, right, bottom): `bounded=1` keeps results inside it.
 */
function viewbox(area: SearchArea): string {
  const dLat = area.radiusKm / KM_PER_DEGREE_LAT;
  const dLon = area.radiusKm / (KM_PER_DEGREE_LAT * Math.max(Math.cos((area.center.lat * Math.PI) / 180), 0.01));
  const { lat, lon } = area.center;
  return [lon - dLon, Math.min(lat + dLat, 90), lon + dLon, Math.max(lat - dLat, -90)]
    .map((n) => n.toFixed(6))
    .join(',');
}

async function nominatim(t: ProviderTarget, text: string, area?: SearchArea): Promise<ProviderPlace[]> {
  const url = new URL('search', `${t.baseUrl.replace(/\/+$/, '')}/`);
  url.searchParams.set('q', text);
  url.searchParams.set('format', 'jsonv2');
  url.searchParams.set('limit', String(LIMIT));
  // The place's OpenStreetMap tags beyond its name: where its phone, website and email are.
  url.searchParams.set('extratags', '1');
  if (area) {
    url.searchParams.set('viewbox', viewbox(area));
    url.searchParams.set('bounded', '1');
  }
  if (t.key) url.searchParams.set('key', t.key);
  const body = await call(t, url.href, {
    headers: { accept: 'application/json', 'user-agent': t.userAgent ?? READER_USER_AGENT, 'accept-language': 'en' },
  });
  if (!Array.isArray(body))
    throw unavailable('the nominatim places provider answered in an unexpected format (not a list of places)');
  return body.flatMap((p: Record<string, unknown>) => {
    const lat = finite(p.lat);
    const lon = finite(p.lon);
    const display = typeof p.display_name === 'string' ? p.display_name : null;
    const name = (typeof p.name === 'string' && p.name) || display?.split(',')[0]?.trim();
    if (lat === null || lon === null || !name) return [];
    const osm =
      typeof p.osm_type === 'string' && ['node', 'way', 'relation'].includes(p.osm_type) && p.osm_id !== undefined;
    const source = osm
      ? `https://www.openstreetmap.org/${p.osm_type}/${p.osm_id}`
      : `${t.baseUrl.replace(/\/+$/, '')}/details?place_id=${encodeURIComponent(String(p.place_id ?? ''))}`;
    const tags = (p.extratags && typeof p.extratags === 'object' ? p.extratags : {}) as Record<string, unknown>;
    const tag = (...keys: string[]) =>
      keys.map((k) => tags[k]).find((v): v is string => typeof v === 'string' && v.trim() !== '') ?? null;
    return [
      {
        name,
        address: display,
        rating: null,
        ratingCount: null,
        lat,
        lon,
        source,
        // A tag may list several values separated by ";": the first is the main one.
        phone: tag('phone', 'contact:phone', 'contact:mobile')?.split(';')[0]!.trim() ?? null,
        website: tag('website', 'contact:website', 'url') ?? null,
        email: tag('email', 'contact:email')?.split(';')[0]!.trim() ?? null,
      },
    ];
  });
}

const FIELD_MASK = [
  'id',
  'displayName',
  'formattedAddress',
  'rating',
  'userRatingCount',
  'location',
  'googleMapsUri',
  'internationalPhoneNumber',
  'websiteUri',
]
  .map((f) => `places.${f}`)
  .join(',');

async function google(t: ProviderTarget, text: string, area?: SearchArea): Promise<ProviderPlace[]> {
  if (!t.key)
    throw policyViolation(
      'the google places provider needs an API key: set MAP_PROVIDER_KEY or send placesProviderApiKey',
    );
  const request = {
    textQuery: text,
    pageSize: LIMIT,
    // Google caps a location bias circle at 50 km; results beyond the radius are dropped afterwards.
    ...(area
      ? {
          locationBias: {
            circle: {
              center: { latitude: area.center.lat, longitude: area.center.lon },
              radius: Math.min(area.radiusKm * 1000, 50_000),
            },
          },
        }
      : {}),
  };
  const body = await call(t, `${t.baseUrl.replace(/\/+$/, '')}/v1/places:searchText`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': t.key, 'x-goog-fieldmask': FIELD_MASK },
    body: JSON.stringify(request),
  });
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw unavailable('the google places provider answered in an unexpected format');
  const places = (body as { places?: unknown }).places ?? [];
  if (!Array.isArray(places))
    throw unavailable('the google places provider answered in an unexpected format (places is not a list)');
  return places.flatMap((p: Record<string, any>) => {
    const lat = finite(p.location?.latitude);
    const lon = finite(p.location?.longitude);
    const name = typeof p.displayName?.text === 'string' ? p.displayName.text : null;
    if (lat === null || lon === null || !name) return [];
    const source =
      typeof p.googleMapsUri === 'string'
        ? p.googleMapsUri
        : `https://www.google.com/maps/place/?q=place_id:${encodeURIComponent(String(p.id ?? ''))}`;
    return [
      {
        name,
        address: typeof p.formattedAddress === 'string' ? p.formattedAddress : null,
        rating: finite(p.rating),
        ratingCount: finite(p.userRatingCount),
        lat,
        lon,
        source,
        phone: typeof p.internationalPhoneNumber === 'string' ? p.internationalPhoneNumber : null,
        website: typeof p.websiteUri === 'string' ? p.websiteUri : null,
        email: null,
      },
    ];
  });
}

/** Places for `text`, inside `area` when one is given (the provider may still return some outside it). */
export function searchPlaces(t: ProviderTarget, text: string, area?: SearchArea): Promise<ProviderPlace[]> {
  return t.provider === 'google' ? google(t, text, area) : nominatim(t, text, area);
}
