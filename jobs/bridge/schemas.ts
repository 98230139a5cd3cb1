import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  Capability,
  ConnectorId,
  ConnectorScope,
  CONNECTOR_KINDS,
  CredentialRef,
  CREDENTIAL_TYPES,
  Endpoint,
  SigningSecret,
  CallbackSigning,
  ResourcePattern,
} from './connector-schemas.js';
import { PREFLIGHT_CHECKS, PREFLIGHT_STATUSES } from '../policy/index.js';
import { Ok, Page, PageQuery, StringEnum, Timestamp } from '../../shared/schemas/common.js';
import { MATCH_CRITERIA } from './logic.js';
import { CONNECTORS, SESSIONS } from './machines.js';
import { READY_CONNECTOR_IDS } from './ready-connectors.js';

/**
 * The bridge schemas whose vocabularies come from this folder (the status
 * machines, the ready-made connectors), beside the lists they derive from;
 * the rest are in shared/schemas/bridge.ts.
 */

export const ConnectorStatus = StringEnum(CONNECTORS.statuses);
export const SessionStatus = StringEnum(SESSIONS.statuses);
export const ENDPOINT_KINDS = ['https', 'clientHosted'] as const;

const StoredScopeView = Type.Object({
  actions: Type.Array(Type.String()),
  resources: Type.Array(Type.String()),
  tokenRefs: Type.Array(Type.String()),
});
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const CredentialView = Type.Object({
  type: StringEnum(CREDENTIAL_TYPES),
  tokenRef: Type.String({ description: 'The reference, never a value' }),
});

export const ConnectorView = Type.Object(
  {
    connectorId: Type.String(),
    kind: StringEnum(CONNECTOR_KINDS),
    caps: Type.Array(Type.String()),
    capabilityFlags: Type.Record(Type.String(), Type.Boolean(), {
      description: 'Capability → whether the bridge policy allows it',
    }),
    endpoint: Type.String(),
    endpointKind: StringEnum(ENDPOINT_KINDS),
    credential: Nullable(CredentialView),
    scopes: Type.Array(StoredScopeView),
    status: ConnectorStatus,
    statusReason: Nullable(Type.String()),
    allowedTransitions: Type.Array(ConnectorStatus),
    preflightReady: Type.Boolean({ description: 'Active, some capability allowed, every reference set' }),
    notReady: Type.Array(Type.Object({ check: StringEnum(PREFLIGHT_CHECKS), message: Type.String() })),
    lastPreflight: Nullable(
      Type.Object({
        at: Timestamp,
        action: Type.String(),
        resource: Nullable(Type.String()),
        status: StringEnum(PREFLIGHT_STATUSES),
      }),
    ),
    templateId: Nullable(Type.String()),
    platform: Type.Boolean({ description: 'Registered by an operator for every account (may hold env: references)' }),
    signed: Type.Boolean({ description: 'Has a signing secret (never shown): actions are signed, callbacks verified' }),
    callbackSigning: CallbackSigning,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Connector' },
);

export const ConnectorReply = Ok({ connector: ConnectorView }, 'ConnectorReply');
export const ConnectorPage = Page('connectors', ConnectorView, 'ConnectorPage');

export const ConnectorUpdate = Type.Object(
  {
    status: Type.Optional(ConnectorStatus),
    statusReason: Type.Optional(Type.String({ maxLength: 500 })),
    scopes: Type.Optional(
      Type.Array(ConnectorScope, { minItems: 1, maxItems: 50, description: 'Replaces every scope' }),
    ),
    credential: Type.Optional(CredentialRef),
    endpoint: Type.Optional(Endpoint),
    signingSecret: Type.Optional(
      Type.Union([SigningSecret, Type.Null()], { description: 'A new signing secret; null removes it' }),
    ),
    callbackSigning: Type.Optional(CallbackSigning),
  },
  { $id: 'ConnectorUpdate', additionalProperties: true },
);
export type ConnectorUpdate = Static<typeof ConnectorUpdate>;

export const TemplateInstall = Type.Object(
  {
    templates: Type.Array(
      Type.Object(
        {
          templateId: StringEnum(READY_CONNECTOR_IDS),
          connectorId: Type.Optional(ConnectorId),
          endpoint: Type.Optional(Endpoint),
        },
        { additionalProperties: true },
      ),
      { minItems: 1, maxItems: 20 },
    ),
  },
  { $id: 'ConnectorTemplateInstall', additionalProperties: true },
);
export type TemplateInstall = Static<typeof TemplateInstall>;

export const ReadyConnectorView = Type.Object({
  templateId: StringEnum(READY_CONNECTOR_IDS),
  title: Type.String(),
  description: Type.String(),
  kind: StringEnum(CONNECTOR_KINDS),
  caps: Type.Array(Type.String()),
  endpoint: Nullable(Type.String({ description: 'null: give one at install' })),
  credential: Nullable(CredentialView),
  scopes: Type.Array(StoredScopeView),
  requiredEnv: Type.Array(
    Type.String({ description: "cred: references to store in the account's vault (POST /v1/bridge/credentials)" }),
  ),
});

export const ReadyConnectorList = Ok({ templates: Type.Array(ReadyConnectorView) }, 'ReadyConnectorList');

export const TemplateInstallReply = Ok(
  {
    installed: Type.Array(
      Type.Object({
        templateId: Type.String(),
        connectorId: Type.String(),
        created: Type.Boolean({ description: 'false: it was installed before' }),
        connector: ConnectorView,
      }),
    ),
  },
  'ConnectorTemplateInstallReply',
);

export const ConnectorMatchReply = Ok(
  {
    matches: Type.Array(
      Type.Object({
        connectorId: Type.String(),
        score: Type.Number({ minimum: 0, maximum: 1 }),
        status: ConnectorStatus,
        preflightReady: Type.Boolean(),
        reasons: Type.Array(
          Type.Object({
            criterion: StringEnum(MATCH_CRITERIA),
            met: Type.Boolean(),
            weight: Type.Number(),
            detail: Type.String(),
          }),
        ),
      }),
      { description: 'Best first' },
    ),
  },
  'ConnectorMatchReply',
);

export const SessionCreate = Type.Object(
  {
    connectorId: ConnectorId,
    actions: Type.Array(Capability, { minItems: 1, maxItems: 50, uniqueItems: true }),
    resources: Type.Optional(
      Type.Array(ResourcePattern, {
        minItems: 1,
        maxItems: 50,
        description: "Omitted: whatever the connector's scopes allow for the actions",
      }),
    ),
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Default: one hour from now; at most CONNECTION_SESSION_MAX_HOURS ahead',
      }),
    ),
  },
  { $id: 'ConnectionSessionCreate', additionalProperties: true },
);
export type SessionCreate = Static<typeof SessionCreate>;

export const SessionRevoke = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500 })) },
  { $id: 'ConnectionSessionRevoke', additionalProperties: true },
);

export const SessionListQuery = Type.Composite([
  PageQuery,
  Type.Object({ connectorId: Type.Optional(ConnectorId), status: Type.Optional(SessionStatus) }),
]);

export const SessionView = Type.Object(
  {
    sessionId: Type.String(),
    connectorId: Type.String(),
    actions: Type.Array(Type.String()),
    resources: Nullable(Type.Array(Type.String(), { description: "null: not narrowed beyond the connector's scopes" })),
    status: SessionStatus,
    expiresAt: Timestamp,
    revokedAt: Nullable(Timestamp),
    revokedReason: Nullable(Type.String()),
    createdAt: Timestamp,
  },
  { $id: 'ConnectionSession' },
);

export const SessionReply = Ok({ session: SessionView }, 'ConnectionSessionReply');
export const SessionPage = Page('sessions', SessionView, 'ConnectionSessionPage');
