import { Type, type Static } from '@sinclair/typebox';
import { Ok, Page, StringEnum, Timestamp } from '../../shared/schemas/common.js';

/** The credential vault's request and answer shapes: one source for validation, types, OpenAPI and MCP. */

export const CREDENTIAL_KINDS = [
  'apiKey',
  'basic',
  'bearer',
  'oauth2ClientCredentials',
  'oauth2RefreshToken',
  'password',
  'totpSeed',
  'privateKey',
] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];
export const CREDENTIAL_STATUSES = ['active', 'disabled'] as const;

export const CredentialName = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$',
  description: 'Unique in the account; referenced as cred:NAME (or cred:NAME@version)',
});

// Checked as a URL by the egress rules when stored (jobs/credentials/service.ts), not by a format.
const TokenUrl = Type.String({
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
  maxLength: 2000,
  description: 'Token endpoint (called through the egress client)',
});
const Secret = (description: string) => Type.String({ minLength: 1, maxLength: 16_384, description });

/** The value each kind takes: a string for single-secret kinds, an object for the others. Write-only. */
export const KIND_VALUES = {
  apiKey: Secret('The API key'),
  bearer: Secret('The bearer token'),
  password: Secret('The password'),
  totpSeed: Type.String({ pattern: '^[A-Za-z2-7]{16,128}=*$', description: 'Base32 TOTP seed' }),
  privateKey: Secret('A private key (PEM)'),
  basic: Type.Object(
    { username: Type.String({ minLength: 1, maxLength: 1000 }), password: Secret('The password') },
    { additionalProperties: false },
  ),
  oauth2ClientCredentials: Type.Object(
    {
      tokenUrl: TokenUrl,
      clientId: Type.String({ minLength: 1, maxLength: 1000 }),
      clientSecret: Secret('Client secret'),
      scope: Type.Optional(Type.String({ maxLength: 2000 })),
      audience: Type.Optional(Type.String({ maxLength: 2000 })),
    },
    { additionalProperties: false },
  ),
  oauth2RefreshToken: Type.Object(
    {
      tokenUrl: TokenUrl,
      clientId: Type.String({ minLength: 1, maxLength: 1000 }),
      clientSecret: Type.Optional(Secret('Client secret')),
      refreshToken: Secret('Refresh token'),
      scope: Type.Optional(Type.String({ maxLength: 2000 })),
    },
    { additionalProperties: false },
  ),
} as const;
export type KindValue<K extends CredentialKind> = Static<(typeof KIND_VALUES)[K]>;

const Value = Type.Union(
  [Type.String({ minLength: 1, maxLength: 16_384 }), Type.Object({}, { additionalProperties: true })],
  {
    description:
      'Write-only, never returned: a string (apiKey, bearer, password, totpSeed, privateKey) or an object ' +
      '(basic: username, password; oauth2ClientCredentials: tokenUrl, clientId, clientSecret, scope?, audience?; ' +
      'oauth2RefreshToken: tokenUrl, clientId, clientSecret?, refreshToken, scope?)',
  },
);
const Metadata = Type.Record(
  Type.String({ maxLength: 100 }),
  Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]),
  {
    maxProperties: 50,
    description: 'Free-form labels (never a secret: shown in answers)',
  },
);

export const CredentialCreate = Type.Object(
  { name: CredentialName, kind: StringEnum(CREDENTIAL_KINDS), value: Value, metadata: Type.Optional(Metadata) },
  { $id: 'CredentialCreate', additionalProperties: false },
);
export type CredentialCreate = Static<typeof CredentialCreate>;

export const CredentialRotate = Type.Object(
  {
    value: Value,
    graceHours: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 8760,
        description: 'How long the previous version stays usable; default CREDENTIAL_ROTATION_GRACE_HOURS',
      }),
    ),
  },
  { $id: 'CredentialRotate', additionalProperties: false },
);
export type CredentialRotate = Static<typeof CredentialRotate>;

export const CredentialStatusChange = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500 })) },
  { $id: 'CredentialStatusChange', additionalProperties: false },
);

export const CredentialView = Type.Object(
  {
    name: Type.String(),
    kind: StringEnum(CREDENTIAL_KINDS),
    status: StringEnum(CREDENTIAL_STATUSES),
    ref: Type.String({ description: 'cred:NAME, to put where a secret reference belongs' }),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    currentVersion: Type.Integer(),
    versions: Type.Array(
      Type.Object({ version: Type.Integer(), createdAt: Timestamp, expiresAt: Type.Union([Timestamp, Type.Null()]) }),
    ),
    lastUsedAt: Type.Union([Timestamp, Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Credential', description: 'A vault credential: never its value' },
);

export const CredentialReply = Ok({ credential: CredentialView }, 'CredentialReply');
export const CredentialPage = Page('credentials', CredentialView, 'CredentialPage');
