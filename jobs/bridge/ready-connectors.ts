import type { ConnectorCreate } from './connector-schemas.js';
import { normalizeScopes, refsFor } from './logic.js';

/**
 * Ready-made connectors that ship with the service. Each names the vault
 * credentials it reads (`TWILIO_AUTH_TOKEN` becomes `cred:TWILIO_AUTH_TOKEN`,
 * resolved in the installing account's vault); an `endpoint` of null means
 * the installer must give one (a generic webhook has no address of its own).
 */
interface ReadyConnector {
  templateId: string;
  title: string;
  description: string;
  kind: ConnectorCreate['kind'];
  caps: string[];
  endpoint: string | null;
  credential: { type: NonNullable<ConnectorCreate['credential']>['type']; variable: string } | null;
  scopes: Array<{ actions: string[]; resources?: string[]; variables?: string[] }>;
}

const READY: readonly ReadyConnector[] = [
  {
    templateId: 'genericWebhook',
    title: 'Generic webhook',
    description: 'POSTs JSON to an https endpoint of yours, signed with an HMAC secret you keep in the vault',
    kind: 'webhook',
    caps: ['webhook.post'],
    endpoint: null,
    credential: { type: 'hmac', variable: 'WEBHOOK_SIGNING_SECRET' },
    scopes: [{ actions: ['webhook.post'] }],
  },
  {
    templateId: 'httpJsonBearer',
    title: 'HTTP JSON API with a bearer token',
    description:
      'Reads and writes a JSON API of yours with a bearer token; narrow its scopes to the paths it may touch',
    kind: 'custom',
    caps: ['http.get', 'http.post'],
    endpoint: null,
    credential: { type: 'bearer', variable: 'HTTP_API_TOKEN' },
    scopes: [{ actions: ['http.get', 'http.post'], resources: ['**'] }],
  },
  {
    templateId: 'githubActions',
    title: 'GitHub Actions (CI trigger)',
    description: 'Dispatches a workflow and reads run status through the GitHub REST API with a fine-grained token',
    kind: 'custom',
    caps: ['ci.trigger', 'ci.status'],
    endpoint: 'https://api.github.com',
    credential: { type: 'bearer', variable: 'GITHUB_TOKEN' },
    scopes: [
      {
        actions: ['ci.trigger', 'ci.status'],
        resources: ['repos/*/*/actions/workflows/*', 'repos/*/*/actions/runs/*'],
      },
    ],
  },
  {
    templateId: 'twilio',
    title: 'Twilio SMS and voice',
    description: 'Sends SMS and places calls through Twilio with the account SID and auth token (HTTP basic)',
    kind: 'basicRef',
    caps: ['sms.send', 'voice.call', 'messages.status'],
    endpoint: 'https://api.twilio.com/2010-04-01',
    credential: { type: 'basic', variable: 'TWILIO_AUTH_TOKEN' },
    scopes: [
      {
        actions: ['sms.send', 'voice.call', 'messages.status'],
        resources: ['Accounts/*/Messages', 'Accounts/*/Calls', 'Accounts/*/Messages/*'],
        variables: ['TWILIO_ACCOUNT_SID'],
      },
    ],
  },
  {
    templateId: 'googlePlaces',
    title: 'Google Places',
    description: 'Text and nearby place search (name, address, rating, location) with an API key',
    kind: 'custom',
    caps: ['places.search'],
    endpoint: 'https://places.googleapis.com/v1',
    credential: { type: 'apiKey', variable: 'GOOGLE_PLACES_API_KEY' },
    scopes: [{ actions: ['places.search'], resources: ['places:searchText', 'places:searchNearby'] }],
  },
];

/** A template as a connector body (endpoint still null when the installer must give it). */
export function readyConnector(t: ReadyConnector) {
  const env = (v: string) => `cred:${v}`;
  const credential = t.credential ? { type: t.credential.type, tokenRef: env(t.credential.variable) } : null;
  const scopes = normalizeScopes(
    t.scopes.map((s) => ({ actions: s.actions, resources: s.resources, tokenRefs: (s.variables ?? []).map(env) })),
    t.caps,
  );
  return {
    templateId: t.templateId,
    title: t.title,
    description: t.description,
    kind: t.kind,
    caps: t.caps,
    endpoint: t.endpoint,
    credential,
    scopes,
    requiredEnv: refsFor({ credential, scopes }),
  };
}

export function readyConnectors() {
  return READY.map((t) => readyConnector(t));
}

export function findReadyConnector(templateId: string) {
  const t = READY.find((r) => r.templateId === templateId);
  return t ? readyConnector(t) : null;
}

export const READY_CONNECTOR_IDS = READY.map((t) => t.templateId);
