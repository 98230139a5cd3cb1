import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { sign } from '../../shared/signing.js';
import { open } from '../../shared/vault/index.js';
import { harness } from '../support/harness.js';

/** What a verifier does with nothing but the published JWK and node:crypto. */
function verifiesWithPublishedKey(jwk: Record<string, unknown>, bytes: Buffer, signature: string): boolean {
  const key = crypto.createPublicKey({ key: jwk as crypto.webcrypto.JsonWebKey, format: 'jwk' });
  return crypto.verify(null, bytes, key, Buffer.from(signature, 'base64url'));
}

describe('GET /.well-known/jwks.json', () => {
  it('is public and lists Ed25519 signing keys as an RFC 7517 JWK Set, with only public members', async () => {
    const res = await harness.call('GET', '/.well-known/jwks.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('cache-control') ?? '', /public, max-age=\d+/);
    assert.deepEqual(Object.keys(res.body), ['keys']);
    assert.ok(res.body.keys.length >= 1);
    for (const jwk of res.body.keys) {
      assert.deepEqual(Object.keys(jwk).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x']);
      assert.deepEqual([jwk.kty, jwk.crv, jwk.use, jwk.alg], ['OKP', 'Ed25519', 'sig', 'EdDSA']);
      assert.equal(Buffer.from(jwk.x, 'base64url').length, 32);
      // kid is the RFC 7638 thumbprint, so a verifier can recompute it from the key itself.
      const thumbprint = crypto
        .createHash('sha256')
        .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x: jwk.x }))
        .digest('base64url');
      assert.equal(jwk.kid, thumbprint);
    }
  });

  it('a signature made by the service verifies with the published key using plain node:crypto', async () => {
    const bytes = Buffer.from(JSON.stringify({ proofPack: 'pp_1', sha256: 'abc' }));
    const sig = await sign(harness.deps, bytes);
    assert.equal(sig.alg, 'EdDSA');
    const { body } = await harness.call('GET', '/.well-known/jwks.json');
    const jwk = body.keys.find((k: { kid: string }) => k.kid === sig.kid);
    assert.ok(jwk, 'the signing key is published');
    assert.equal(body.keys[0].kid, sig.kid, 'and listed first, as the current key');
    assert.equal(verifiesWithPublishedKey(jwk, bytes, sig.signature), true);
    assert.equal(
      verifiesWithPublishedKey(jwk, Buffer.from(JSON.stringify({ proofPack: 'pp_1', sha256: 'abd' })), sig.signature),
      false,
    );
  });

  it('never carries the private key', async () => {
    const res = await harness.call('GET', '/.well-known/jwks.json');
    const rows = await harness.deps.db('signing_keys').whereNotNull('private_key').select('private_key');
    assert.ok(rows.length >= 1);
    for (const { private_key: sealed } of rows) {
      const pem = await open(harness.deps, sealed); // stored sealed (shared/vault)
      const der = crypto.createPrivateKey(pem).export({ format: 'der', type: 'pkcs8' });
      const seed = der.subarray(der.length - 32);
      for (const form of [
        pem.split('\n')[1],
        seed.toString('base64'),
        seed.toString('base64url'),
        seed.toString('hex'),
      ])
        assert.ok(!res.text.includes(form));
    }
    assert.ok(!/"d"\s*:/.test(res.text));
  });

  it('is in the OpenAPI document as a public route with the JwkSet schema', async () => {
    const doc = (await harness.call('GET', '/openapi.json')).body;
    const op = doc.paths['/.well-known/jwks.json'].get;
    assert.deepEqual(op.security, []);
    assert.equal(op.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/JwkSet');
    assert.equal(doc.components.schemas.Jwk.additionalProperties, false);
  });
});
