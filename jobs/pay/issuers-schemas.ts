import { Type, type Static } from '@sinclair/typebox';
import { Page, PageQuery, StringEnum, Text, Timestamp } from '../../shared/schemas/common.js';

const Jwk = Type.Object(
  {
    kty: Type.Literal('OKP'),
    crv: Type.Literal('Ed25519'),
    x: Type.String({
      pattern: '^[A-Za-z0-9_-]{43}$',
      description: 'The 32-byte public key, base64url without padding',
    }),
    kid: Type.Optional(Text(200)),
  },
  { $id: 'IssuerJwk', additionalProperties: false, description: 'An Ed25519 public key as a JWK (RFC 8037)' },
);

export const IssuerCreate = Type.Object(
  { entityId: Text(200), publicKey: Jwk },
  { $id: 'IssuerCreate', additionalProperties: false },
);
export type IssuerCreate = Static<typeof IssuerCreate>;

export const IssuerView = Type.Object(
  {
    issuerId: Type.String(),
    entityId: Type.String({ description: 'What a mandate names as issuer.entityId' }),
    publicKey: Jwk,
    status: StringEnum(['active', 'revoked'] as const),
    createdBy: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    revokedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'Issuer' },
);
export const IssuerReply = Type.Object({ ok: Type.Literal(true), issuer: IssuerView }, { $id: 'IssuerReply' });
export const IssuerPage = Page('issuers', IssuerView, 'IssuerPage');
export const IssuerListQuery = PageQuery;
