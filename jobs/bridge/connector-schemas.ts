import { Type, type Static } from '@sinclair/typebox';
import { AnyObject, StringEnum, Text, Timestamp } from '../../shared/schemas/common.js';
import { PROVIDER_KINDS } from './providers/kinds.js';
import { POLICY_DOMAINS, POLICY_EFFECTS, PREFLIGHT_CHECKS, PREFLIGHT_STATUSES } from '../policy/index.js';

/** Generic kinds, then the providers an adapter serves (jobs/bridge/providers/). */
export const CONNECTOR_KINDS = ['custom', 'webhook', 'oauth', 'basicRef', ...PROVIDER_KINDS] as const;
/** How a credential is presented to the provider (bridge actions put it in the matching header). */
export const CREDENTIAL_TYPES = ['bearer', 'basic', 'apiKey', 'oauth2', 'hmac'] as const;
/**
 * Bridge action statuses, in the order of the action table (jobs/bridge/machines.ts, which a unit test holds to this
 * list).
 */
export const ACTION_STATUSES = [
  'queued',
  'running',
  'retrying',
  'awaitingClient',
  'awaitingProvider',
  'succeeded',
  'delivered',
  'failed',
  'timedOut',
] as const;

/** `<area>.<verb>`: `sms.send`, `crm.read`. */
export const Capability = Type.String({
  pattern: '^[a-z][A-Za-z0-9]{0,49}\\.[a-z][A-Za-z0-9]{0,49}$',
  description: 'A capability, `<area>.<verb>`',
});
/** A capability, or a pattern with `*` for a whole part (`crm.*`, `*.read`). */
export const CapabilityPattern = Type.String({
  pattern: '^([a-z][A-Za-z0-9]{0,49}|\\*)\\.([a-z][A-Za-z0-9]{0,49}|\\*)$',
  description: '`<area>.<verb>`, either part may be `*`',
});
export const ConnectorId = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$',
  description: 'Stable identifier, unique in the account',
});
/** A glob over resource names: `*`, `**`, `?` and `[...]` (no braces, extglobs or negation). */
export const ResourcePattern = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'Glob: `*` within a segment, `**` across segments, `?`, `[...]`',
});
/**
 * Checked on the server (shared/secrets.ts): a literal value or a name outside the secret prefix is refused without
 * being echoed.
 */
export const SecretReference = Type.String({
  minLength: 1,
  maxLength: 300,
  description:
    "`cred:NAME[@version]` (this account's credential vault), or `env:NAME` under SECRET_ENV_PREFIX on a " +
    'platform connector only; resolved on the server, never echoed',
});

export const CredentialRef = Type.Object(
  { type: StringEnum(CREDENTIAL_TYPES), tokenRef: SecretReference },
  { additionalProperties: true },
);

export const ConnectorScope = Type.Object(
  {
    actions: Type.Array(CapabilityPattern, { minItems: 1, maxItems: 50 }),
    resources: Type.Optional(
      Type.Array(ResourcePattern, { minItems: 1, maxItems: 50, description: 'Omitted: any resource (`**`)' }),
    ),
    tokenRefs: Type.Optional(Type.Array(SecretReference, { maxItems: 10 })),
  },
  { additionalProperties: true },
);
export type ConnectorScope = Static<typeof ConnectorScope>;

/** A scope as stored and shown: resources always explicit (`**` when none were given), tokenRefs always a list. */
export interface StoredScope {
  actions: string[];
  resources: string[];
  tokenRefs: string[];
}

/**
 * A connector's callback signing secret. Its form depends on the connector's kind (checked on the server, 400 naming
 * the contract): Standard Webhooks' `whsec_…` for generic connectors and Stripe (its webhook endpoint's secret), the
 * account's auth token for Twilio (32 hex; absent, the credential's is used), the kind's own for other providers.
 */
export const SigningSecret = Type.String({
  pattern: '^[\\x21-\\x7e]{16,200}$',
  maxLength: 200,
  description:
    "Secret the provider signs its callbacks with, by the connector's kind: `whsec_…` (Standard Webhooks; also " +
    "signs what generic bridge actions send; Stripe: the webhook endpoint's secret), Twilio: the account's auth " +
    "token (32 hex; omit it to use the credential's), Slack: the app's signing secret (32 hex); stored, never " +
    'returned',
});

/**
 * How a connector's provider callbacks are authenticated: `required` (a signature made with the connector's
 * `signingSecret`; without a secret every callback is refused) or `unsigned`, for local development only: callbacks
 * are accepted unsigned while the connector has no secret. Refused when NODE_ENV=production.
 */
export const CALLBACK_SIGNINGS = ['required', 'unsigned'] as const;
export const CallbackSigning = StringEnum(CALLBACK_SIGNINGS, {
  description:
    'required (default): callbacks must be signed with signingSecret. unsigned: development only, callbacks ' +
    'are accepted without a signature while there is no signingSecret; refused (400) when NODE_ENV=production',
});

const Caps = Type.Array(Capability, { minItems: 1, maxItems: 100, uniqueItems: true });
export const Endpoint = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'https URL, or `bridge://client/<name>` for a client-hosted adapter',
});
const Scopes = Type.Array(ConnectorScope, {
  minItems: 1,
  maxItems: 50,
  description: 'Omitted: one scope with every cap on any resource',
});

export const ConnectorCreate = Type.Object(
  {
    connectorId: ConnectorId,
    kind: StringEnum(CONNECTOR_KINDS),
    caps: Caps,
    endpoint: Endpoint,
    credential: Type.Optional(CredentialRef),
    scopes: Type.Optional(Scopes),
    signingSecret: Type.Optional(SigningSecret),
    callbackSigning: Type.Optional(CallbackSigning),
    platform: Type.Optional(
      Type.Boolean({
        description:
          'Operators only (admin scope): a platform connector, usable by every account, the only kind that ' +
          'may hold env: references',
      }),
    ),
  },
  { $id: 'ConnectorCreate', additionalProperties: true },
);
export type ConnectorCreate = Static<typeof ConnectorCreate>;

export const ConnectorMatchRequest = Type.Object(
  {
    capability: Capability,
    resource: Type.Optional(ResourcePattern),
    tokenRef: Type.Optional(SecretReference),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { $id: 'ConnectorMatchRequest', additionalProperties: true },
);

export const PreflightRequest = Type.Object(
  {
    action: Capability,
    resource: Type.Optional(ResourcePattern),
    checkEndpoint: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Also call the endpoint through the guarded egress client (no credential is sent)',
      }),
    ),
    sessionId: Type.Optional(Text(200)),
  },
  { $id: 'PreflightRequest', additionalProperties: true },
);

export const PreflightError = Type.Object(
  {
    check: StringEnum(PREFLIGHT_CHECKS),
    message: Type.String(),
    ref: Type.Optional(Type.String({ description: 'secret: the reference that is not set (never its value)' })),
    variable: Type.Optional(Type.String({ description: 'secret: the environment variable to set' })),
    capability: Type.Optional(Type.String()),
    resource: Type.Optional(Type.String()),
    rule: Type.Optional(Type.String({ description: 'policy: the rule that denied' })),
  },
  { additionalProperties: true },
);

export const PreflightResult = Type.Object(
  {
    ok: Type.Boolean({ description: 'true when status is ready' }),
    status: StringEnum(PREFLIGHT_STATUSES),
    connectorId: Type.String(),
    action: Type.String(),
    resource: Type.Union([Type.String(), Type.Null()]),
    errors: Type.Array(PreflightError, { description: 'One entry per failed check' }),
    checks: Type.Array(
      Type.Object({
        check: StringEnum(PREFLIGHT_CHECKS),
        passed: Type.Boolean(),
        detail: Type.Optional(Type.String()),
      }),
    ),
    checkedAt: Timestamp,
  },
  { $id: 'PreflightResult', additionalProperties: true },
);

export const PolicyEvaluate = Type.Object(
  {
    domain: StringEnum(POLICY_DOMAINS),
    action: Capability,
    connectorId: Type.Optional(ConnectorId),
  },
  { $id: 'PolicyEvaluateRequest', additionalProperties: true },
);

export const PolicyDecisionView = Type.Object(
  {
    ok: Type.Literal(true),
    allowed: Type.Boolean(),
    domain: StringEnum(POLICY_DOMAINS),
    action: Type.String(),
    connectorId: Type.Union([Type.String(), Type.Null()]),
    rule: Type.Object({ id: Type.String(), effect: StringEnum(POLICY_EFFECTS) }),
    reason: Type.String(),
    requires: Type.Array(Type.String(), {
      description: 'Conditions enforced where the action executes (pay: `mandate`)',
    }),
  },
  { $id: 'PolicyDecision' },
);

const PolicyRuleView = Type.Object({
  id: Type.String(),
  effect: StringEnum(POLICY_EFFECTS),
  caps: Type.Array(Type.String()),
  reason: Type.String(),
  requires: Type.Array(Type.String()),
});

const DomainPolicyView = Type.Object({
  summary: Type.String(),
  allowedCapabilities: Type.Array(Type.String()),
  deniedCapabilities: Type.Array(Type.String()),
  rules: Type.Array(PolicyRuleView, { description: 'In order: the first rule that matches decides' }),
  default: Type.Literal('deny'),
});

export const PolicyMapView = Type.Object(
  {
    ok: Type.Literal(true),
    domains: Type.Object(Object.fromEntries(POLICY_DOMAINS.map((d) => [d, DomainPolicyView]))),
    connectorRules: Type.Array(
      Type.Object({ id: Type.String(), effect: StringEnum(POLICY_EFFECTS), reason: Type.String() }),
      { description: 'Checked in order when an evaluation names a connector' },
    ),
    mandateRequirements: AnyObject,
    preflightRules: Type.Array(
      Type.Object({
        check: StringEnum(PREFLIGHT_CHECKS),
        failsWith: StringEnum(PREFLIGHT_STATUSES),
        rule: Type.String(),
      }),
    ),
    preflightSeverity: Type.Array(StringEnum(PREFLIGHT_STATUSES)),
  },
  { $id: 'PolicyMap' },
);

export { AnyObject };
