import { createHash } from 'node:crypto';
import type { Deps } from '../../shared/deps.js';
import { AppError } from '../../shared/errors.js';
import type { Choice } from '../../shared/schemas/hunt.js';
import { findPlaces } from './places.js';

/**
 * Leads (issue 34): businesses a person can reach, for a request that means to contact someone ("find a plumber
 * near Alexanderplatz and call them"). They come from the places provider (MAP_PROVIDER, through the cached and
 * rate-limited map), keeping the places that name a contact channel (phone, email or website). A proxy mission
 * takes the one chosen: its phone is where the call or message goes.
 */

export interface Lead {
  leadId: string;
  name: string;
  address: string | null;
  phone: string | null;
  email: string | null;
  website: string | null;
  distanceKm: number | null;
  /** The provider's page for the place. */
  source: string;
}

const MAX_LEADS = 10;

export async function findLeads(
  deps: Pick<Deps, 'config' | 'db' | 'redis'>,
  accountId: string,
  terms: string,
  signal?: AbortSignal,
): Promise<{ leads: Lead[]; telemetry: Record<string, unknown> }> {
  if (!deps.config.MAP_PROVIDER)
    return {
      leads: [],
      telemetry: { status: 'unavailable', reason: 'no places provider is configured (MAP_PROVIDER)' },
    };
  let answer;
  try {
    answer = await findPlaces(deps, accountId, { query: terms, radiusKm: 10 }, signal);
  } catch (err) {
    if (signal?.aborted || !(err instanceof AppError)) throw err;
    return { leads: [], telemetry: { status: 'failed', error: err.message } };
  }
  const leads = answer.places
    .filter((p) => p.phone || p.email || p.website)
    .slice(0, MAX_LEADS)
    .map((p) => ({
      leadId: `lead_${createHash('sha256').update(p.source).digest('hex').slice(0, 20)}`,
      name: p.name,
      address: p.address,
      phone: p.phone ?? null,
      email: p.email ?? null,
      website: p.website ?? null,
      distanceKm: p.distanceKm,
      source: p.source,
    }));
  return {
    leads,
    telemetry: {
      status: 'ok',
      provider: answer.provider,
      query: answer.query,
      places: answer.places.length,
      withContact: leads.length,
      notes: answer.notes,
    },
  };
}

/** A lead as a choice: nothing to pay, somewhere to reach (the proxy mission reads `phone`). */
export const leadChoice = (l: Lead): Choice => ({
  itemId: l.leadId,
  title: l.name,
  price: null,
  currency: null,
  net: null,
  netInBudgetCurrency: null,
  vendor: l.name,
  url: l.website ?? l.source,
  phone: l.phone,
  email: l.email,
  kind: 'lead',
});
