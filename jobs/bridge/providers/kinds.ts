// Provider kinds and capabilities: a leaf (the connector schemas import it; adapter.ts imports the schemas' rows).
/** Connector kinds backed by an adapter; each has one file in this folder and one entry in `index.ts`. */
export const PROVIDER_KINDS = [
  'stripe',
  'twilio',
  'smtp',
  'slack',
  'github',
  'pagerduty',
  'searxng',
  'brave',
  'serpapi',
] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** What adapters can do, as bridge capabilities (`<area>.<verb>`). */
export const PROVIDER_CAPABILITIES = [
  'pay.charge',
  'pay.refund',
  'msg.sms',
  'msg.voice',
  'msg.email',
  'msg.chat',
  // GitHub Actions (issue 33): a workflow_dispatch, and a re-run of a run's failed jobs.
  'ci.trigger',
  'ci.rerun',
  // PagerDuty Events v2 (issue 33): an incident's page (trigger, acknowledge, resolve by dedup key).
  'incident.page',
  // Search sources for hunt (issue 34): candidate pages for a query (SearXNG, Brave Search, SerpAPI Google Shopping).
  'search.web',
] as const;
export type ProviderCapability = (typeof PROVIDER_CAPABILITIES)[number];
