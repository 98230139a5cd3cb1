// The provider adapters, by connector kind: each helper of issue 31 adds its one line.
import type { ProviderAdapter } from './adapter.js';
import type { ProviderKind } from './kinds.js';
import { stripeAdapter } from './stripe.js';
import { twilioAdapter } from './twilio.js';

export const PROVIDER_ADAPTERS: Partial<Record<ProviderKind, ProviderAdapter>> = {
  stripe: stripeAdapter,
  twilio: twilioAdapter,
};

export function adapterFor(kind: string): ProviderAdapter | null {
  return PROVIDER_ADAPTERS[kind as ProviderKind] ?? null;
}

export * from './adapter.js';
export * from './kinds.js';
