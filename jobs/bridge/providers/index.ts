// The provider adapters, by connector kind: each helper of issue 31 adds its one line.
import type { ProviderAdapter } from './adapter.js';
import type { ProviderKind } from './kinds.js';
import { githubAdapter } from './github.js';
import { braveAdapter } from './brave.js';
import { pagerDutyAdapter } from './pagerduty.js';
import { searxngAdapter } from './searxng.js';
import { serpApiAdapter } from './serpapi.js';
import { slackAdapter } from './slack.js';
import { smtpAdapter } from './smtp.js';
import { stripeAdapter } from './stripe.js';
import { twilioAdapter } from './twilio.js';

export const PROVIDER_ADAPTERS: Partial<Record<ProviderKind, ProviderAdapter>> = {
  stripe: stripeAdapter,
  smtp: smtpAdapter,
  slack: slackAdapter,
  twilio: twilioAdapter,
  github: githubAdapter,
  pagerduty: pagerDutyAdapter,
  searxng: searxngAdapter,
  brave: braveAdapter,
  serpapi: serpApiAdapter,
};

export function adapterFor(kind: string): ProviderAdapter | null {
  return PROVIDER_ADAPTERS[kind as ProviderKind] ?? null;
}

export * from './adapter.js';
export * from './kinds.js';
