import { Type } from '@sinclair/typebox';
import { AnyObject, StringEnum } from './common.js';

export const CONNECTOR_KINDS = ['custom', 'webhook', 'oauth', 'basicRef'] as const;
/** Domains whose actions the policy evaluator judges. */
export const POLICY_DOMAINS = ['bridge', 'proxy', 'pay'] as const;
export const PREFLIGHT_STATUSES = ['ready', 'blocked'] as const;

const Str = (max = 2000) => Type.String({ minLength: 1, maxLength: max });

export const CredentialRef = Type.Object(
  { type: Str(50), tokenRef: Type.String({ pattern: '^env:[A-Za-z_][A-Za-z0-9_]*$', description: 'env:NAME; resolved on the server, never echoed' }) },
  { additionalProperties: true },
);

export const ConnectorScope = Type.Object(
  { actions: Type.Array(Str(100)), resources: Type.Optional(Type.Array(Str(500))), tokenRefs: Type.Optional(Type.Array(Str(200))) },
  { additionalProperties: true },
);

export const ConnectorCreate = Type.Object(
  {
    connectorId: Type.String({ pattern: '^[A-Za-z0-9._-]{1,100}$' }),
    kind: StringEnum(CONNECTOR_KINDS),
    caps: Type.Array(Type.String({ pattern: '^[a-z][A-Za-z0-9]*\\.[a-z][A-Za-z0-9]*$', description: '<area>.<verb>' }), { minItems: 1, maxItems: 100 }),
    endpoint: Str(2000),
    credential: Type.Optional(CredentialRef),
    scopes: Type.Optional(Type.Array(ConnectorScope, { maxItems: 50 })),
  },
  { $id: 'ConnectorCreate', additionalProperties: true },
);

export const PreflightRequest = Type.Object({ action: Str(200), resource: Type.Optional(Str(2000)) }, { $id: 'PreflightRequest', additionalProperties: true });

export const PreflightResult = Type.Object(
  { ok: Type.Boolean(), status: StringEnum(PREFLIGHT_STATUSES), connectorId: Type.String(), errors: Type.Array(Type.Unknown()) },
  { $id: 'PreflightResult', additionalProperties: true },
);

export const PolicyEvaluate = Type.Object(
  {
    domain: StringEnum(POLICY_DOMAINS),
    action: Str(200),
    connectorId: Type.Optional(Str(100)),
  },
  { $id: 'PolicyEvaluateRequest', additionalProperties: true },
);

export const SecurityValidateRequest = Type.Object(
  { files: Type.Record(Type.String(), Type.String(), { description: 'path → contents' }) },
  { $id: 'SecurityValidateRequest', additionalProperties: true },
);

export { AnyObject };
