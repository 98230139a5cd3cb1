import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { harness } from './harness.js';

/** A task of the caller's, for mandates to be granted on. */
export async function newTask(token: string): Promise<string> {
  const res = await harness.call('POST', '/v1/tasks', { token, body: { domain: 'pay', inData: {} } });
  assert.equal(res.status, 201, res.text);
  return res.body.task.taskId;
}

export async function grant(
  token: string,
  taskId: string,
  constraints: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Promise<any> {
  const res = await harness.call('POST', '/v1/pay/mandates', {
    token,
    body: { taskId, constraints: { maxSpend: { amount: 1000, currency: 'USD' }, ...constraints }, ...extra },
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/**
 * Registers `publicKey` (raw, base64url) as a key of issuer `entityId` on the caller's account (the caller: an owner).
 */
export async function registerIssuer(token: string, entityId: string, publicKey: string): Promise<string> {
  const res = await harness.call('POST', '/v1/pay/issuers', {
    token,
    body: { entityId, publicKey: { kty: 'OKP', crv: 'Ed25519', x: publicKey } },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.issuer.issuerId;
}

/**
 * An issuer's Ed25519 key pair, and a signer of mandate bodies the way a client would sign them (RFC 8785, then
 * Ed25519).
 */
export function issuerKeys() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = (publicKey.export({ format: 'jwk' }) as { x: string }).x;
  return {
    publicKey: raw,
    pem: publicKey.export({ format: 'pem', type: 'spki' }) as string,
    sign: (body: Record<string, unknown>) =>
      sign(null, Buffer.from(canonicalize(body)!, 'utf8'), privateKey).toString('base64url'),
  };
}

const sha256 = (value: unknown) => createHash('sha256').update(canonicalize(value)!, 'utf8').digest('hex');

/**
 * A third party's check of a pack, offline: only the pack, the JWK Set and
 * node:crypto (plus an RFC 8785 implementation), nothing of the service's
 * code. Returns what failed; [] when the pack is intact.
 */
export function verifyOffline(pack: any, jwks: { keys: Array<Record<string, string>> }): string[] {
  const failed: string[] = [];
  pack.sections.forEach((section: any, i: number) => {
    if (pack.seal.sectionHashes[i]?.sha256 !== sha256(section)) failed.push(section.kind);
  });
  const header = {
    packId: pack.packId,
    status: pack.status,
    cite: pack.cite,
    runId: pack.runId,
    sealedAt: pack.sealedAt,
  };
  if (sha256({ header, sectionHashes: pack.seal.sectionHashes }) !== pack.seal.rootHash) failed.push('rootHash');
  const jwk = jwks.keys.find((k) => k.kid === pack.seal.kid);
  const key = jwk && createPublicKey({ key: { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x! }, format: 'jwk' });
  if (
    !key ||
    !verify(null, Buffer.from(pack.seal.rootHash, 'utf8'), key, Buffer.from(pack.seal.signature, 'base64url'))
  )
    failed.push('signature');
  return failed;
}

/** The pack with one byte changed in a string at `path` (the next character code). */
export function tamper(pack: any, path: Array<string | number>): any {
  const copy = structuredClone(pack);
  let node = copy;
  for (const k of path.slice(0, -1)) node = node[k];
  const last = path[path.length - 1]!;
  const value = String(node[last]);
  node[last] = value.slice(0, -1) + String.fromCharCode(value.charCodeAt(value.length - 1) ^ 1);
  return copy;
}
