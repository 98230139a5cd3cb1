import { Type } from '@sinclair/typebox';
import { jwks } from '../../shared/signing.js';
import { defineRoute, Reply } from '../../shared/http/route-spec.js';

// The exact members of a published key: a schema without additional properties documents that no private member (d) is
// ever sent.
const Jwk = Type.Object(
  {
    kty: Type.Literal('OKP'),
    crv: Type.Literal('Ed25519'),
    x: Type.String({ description: 'Public key, base64url (RFC 8037)' }),
    kid: Type.String({ description: 'RFC 7638 thumbprint of the key' }),
    use: Type.Literal('sig'),
    alg: Type.Literal('EdDSA'),
  },
  { $id: 'Jwk', additionalProperties: false },
);
const JwkSet = Type.Object(
  {
    keys: Type.Array(Jwk, {
      description: 'The current signing key first, then retired ones (still valid for old signatures)',
    }),
  },
  { $id: 'JwkSet', additionalProperties: false },
);

export const routes = [
  defineRoute({
    method: 'GET',
    path: '/.well-known/jwks.json',
    tag: 'audit',
    auth: 'public',
    summary: "Public keys that verify the service's signatures (RFC 7517 JWK Set)",
    description:
      "Proof packs are signed with the service's Ed25519 key (EdDSA); find the key by the signature's kid. " +
      'Keys stay listed after a rotation.',
    response: { 200: JwkSet },
    // Verifiers may cache it briefly; an unknown kid is their cue to fetch it again.
    handler: async (_input, deps) => new Reply(200, await jwks(deps), { 'Cache-Control': 'public, max-age=300' }),
  }),
];
