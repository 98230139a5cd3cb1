import type { Static } from '@sinclair/typebox';
import type { Config } from '../../shared/config.js';
import type { Deps } from '../../shared/deps.js';
import { policyViolation } from '../../shared/errors.js';
import { resolveReference } from '../credentials/index.js';
import type { ToolsMapRequest, ToolsMapResult } from './tools-schemas.js';
import { userAgent } from './manners.js';
import { DEFAULT_PROVIDER_URLS, type ProviderTarget } from './place-providers.js';
import { politeSearchPlaces } from './places-manners.js';

/**
 * POST /v1/tools/map: places from the configured provider (MAP_PROVIDER),
 * each with its distance from the search's center when there is one. With
 * no provider configured the tool refuses (422): it never makes places up.
 */

type Request = Static<typeof ToolsMapRequest>;
type Result = Static<typeof ToolsMapResult>;
type Center = NonNullable<Result['center']>;

/** "pharmacy near Alexanderplatz, Berlin" → what ("pharmacy") and where ("Alexanderplatz, Berlin"). */
const NEAR = /^(.+?)\s+(?:near|around|close to)\s+(.+)$/i;

/** Great-circle distance in km (haversine, mean Earth radius), to 0.01 km. */
export function distanceKm(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const h =
    Math.sin(rad(b.lat - a.lat) / 2) ** 2 +
    Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(rad(b.lon - a.lon) / 2) ** 2;
  return Math.round(2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(h))) * 100) / 100;
}

/**
 * The caller's key (a literal, or a `cred:` reference resolved in the
 * caller's vault) wins over the server's. An `env:` reference is refused:
 * a tool call is a tenant's, and may not read (or probe) the server's environment.
 */
async function keyOf(
  deps: Pick<Deps, 'config' | 'db' | 'redis'>,
  accountId: string,
  body: Request,
): Promise<string | null> {
  const given = body.placesProviderApiKey;
  if (given !== undefined)
    return /^(env|cred):/.test(given)
      ? resolveReference(deps, { accountId, allowEnv: false, via: 'tools.map' }, given)
      : given;
  return deps.config.MAP_PROVIDER_KEY ?? null;
}

export async function findPlaces(
  deps: Pick<Deps, 'config' | 'db' | 'redis'>,
  accountId: string,
  body: Request,
  signal?: AbortSignal,
): Promise<Result> {
  const config: Config = deps.config;
  const provider = config.MAP_PROVIDER;
  if (!provider)
    throw policyViolation(
      'no places provider is configured on this server (set MAP_PROVIDER, MAP_PROVIDER_URL and ' +
        'MAP_PROVIDER_KEY); the map tool returns no places rather than invented ones',
      { reason: 'noProvider' },
    );
  const notes: string[] = [];
  const target: ProviderTarget = {
    provider,
    baseUrl: config.MAP_PROVIDER_URL ?? DEFAULT_PROVIDER_URLS[provider],
    key: await keyOf(deps, accountId, body),
    allowPrivate: config.AWP_ALLOW_PRIVATE_EGRESS,
    timeoutMs: config.WEB_PAGE_TIMEOUT_MS,
    signal,
    userAgent: userAgent(deps),
  };
  const cachedNote = (what: string, at: string | null) => {
    if (at) notes.push(`${what} was answered from the cache (the provider's answer of ${at})`);
  };
  let what = body.query;
  let near = body.near;
  const split = !body.center && !near ? NEAR.exec(body.query) : null;
  if (split) [what, near] = [split[1]!, split[2]!];

  let center: Center | null = body.center
    ? { lat: body.center.lat, lon: body.center.lon, from: 'center', label: null }
    : null;
  if (!center && near) {
    const geocoded = await politeSearchPlaces(deps, target, near);
    cachedNote(`"${near}"`, geocoded.cachedAt);
    const [hit] = geocoded.places;
    if (hit) center = { lat: hit.lat, lon: hit.lon, from: 'near', label: hit.address ?? hit.name };
    else {
      notes.push(`"${near}" was not found by the provider, so the search has no center: no distances, no radius`);
      what = body.query;
    }
  }
  if (!center && !near)
    notes.push(
      'no center (center, near, or "… near <place>" in the query): places have no distance and the radius is ' +
        'not applied',
    );

  const answer = await politeSearchPlaces(deps, target, what, center ? { center, radiusKm: body.radiusKm } : undefined);
  cachedNote(`"${what}"`, answer.cachedAt);
  const found = answer.places;
  let places = found.map((p) => ({ ...p, distanceKm: center ? distanceKm(center, p) : null }));
  if (center) {
    const inside = places.filter((p) => p.distanceKm! <= body.radiusKm);
    if (inside.length < places.length)
      notes.push(
        `${places.length - inside.length} place(s) the provider returned lie beyond ${body.radiusKm} km and ` +
          `are left out`,
      );
    places = inside.sort((a, b) => a.distanceKm! - b.distanceKm!);
  }
  return { ok: true, provider, query: what, center, radiusKm: body.radiusKm, places, notes };
}
