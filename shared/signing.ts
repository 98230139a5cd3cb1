import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign as edSign,
  verify as edVerify,
  type KeyObject,
} from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from './config.js';
import { open, PLATFORM, seal } from './vault/index.js';
import {
  currentSigningKeyRow,
  insertFirstSigningKey,
  publicSigningKey,
  publishedSigningKeys,
  replaceCurrentSigningKey,
  type NewSigningKey,
  type PublicJwk,
  type SigningKeyRow,
} from './db/signing-keys.js';

/**
 * The service's Ed25519 signing key: one for every process. From
 * SIGNING_KEY (base64 of the 32-byte seed) when set; otherwise generated once
 * and kept in Postgres. Every key ever current is published at
 * /.well-known/jwks.json, so a signature keeps verifying after a rotation.
 * kid is the key's RFC 7638 thumbprint, so anyone can recompute it. The
 * private half never leaves this module except into its own table.
 */

export type { PublicJwk };
export interface Jwks {
  keys: PublicJwk[];
}
/** A detached signature: `signature` is base64url of the 64-byte Ed25519 signature. */
export interface Signature {
  kid: string;
  alg: 'EdDSA';
  signature: string;
}
export interface SigningDeps {
  db: Knex;
  config: Pick<Config, 'SIGNING_KEY' | 'AWP_MASTER_KEY' | 'AWP_MASTER_KEY_PREVIOUS'>;
}
type Bytes = Uint8Array | string;

const SEED_FORMAT = /^[A-Za-z0-9+/]{43}=$/;
// PKCS8 DER header of an Ed25519 private key; the 32-byte seed follows it.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

const toBytes = (b: Bytes): Uint8Array => (typeof b === 'string' ? Buffer.from(b, 'utf8') : b);

/** The private key of a SIGNING_KEY value. Throws a message that never contains the value. */
export function keyFromSeed(base64Seed: string): KeyObject {
  const seed = SEED_FORMAT.test(base64Seed) ? Buffer.from(base64Seed, 'base64') : Buffer.alloc(0);
  if (seed.length !== 32)
    throw new Error('SIGNING_KEY must be the base64 of a 32-byte Ed25519 seed (openssl rand -base64 32)');
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** RFC 7638 thumbprint of an Ed25519 public key: SHA-256 over its required members in lexicographic order. */
export function jwkThumbprint(x: string): string {
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
}

/** The publishable JWK of a (private or public) Ed25519 key. */
export function publicJwkOf(key: KeyObject): PublicJwk {
  const { x } = createPublicKey(key).export({ format: 'jwk' }) as { x: string };
  return { kty: 'OKP', crv: 'Ed25519', x, kid: jwkThumbprint(x), use: 'sig', alg: 'EdDSA' };
}

/** Offline check of a signature against a published JWK (plain node:crypto; no database). */
export function verifyWithJwk(jwk: Pick<PublicJwk, 'kty' | 'crv' | 'x'>, bytes: Bytes, signature: string): boolean {
  try {
    const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
    return edVerify(null, toBytes(bytes), key, Buffer.from(signature, 'base64url'));
  } catch {
    return false; // not an Ed25519 key or not a signature: it does not verify
  }
}

let configKey: { seed: string; key: KeyObject; jwk: PublicJwk } | undefined;
const privateKeys = new Map<string, KeyObject>();

function fromConfig(seed: string) {
  if (configKey?.seed !== seed) {
    const key = keyFromSeed(seed);
    configKey = { seed, key, jwk: publicJwkOf(key) };
  }
  return configKey;
}

async function generateKey(deps: SigningDeps): Promise<NewSigningKey> {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicJwkOf(privateKey);
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  return { kid: jwk.kid, public_jwk: jwk, private_key: await seal(deps, PLATFORM, pem), source: 'generated' };
}

async function usable(deps: SigningDeps, row: SigningKeyRow): Promise<{ kid: string; key: KeyObject }> {
  let key = privateKeys.get(row.kid);
  if (!key) {
    // A row the start-up backfill has not sealed yet is PEM as it is.
    const pem = row.private_key!.startsWith('-----') ? row.private_key! : await open(deps, row.private_key!);
    key = createPrivateKey(pem);
    privateKeys.set(row.kid, key);
  }
  return { kid: row.kid, key };
}

/**
 * The key this process signs with now, creating or registering it on first
 * use. With SIGNING_KEY: that key, recorded (public half only) as current so
 * it is published. Without: the stored current key; when there is none, one
 * is generated, and processes starting together agree on a single one.
 */
export async function currentSigningKey(deps: SigningDeps): Promise<{ kid: string; key: KeyObject }> {
  const current = await currentSigningKeyRow(deps.db);
  if (deps.config.SIGNING_KEY) {
    const own = fromConfig(deps.config.SIGNING_KEY);
    if (current?.kid !== own.jwk.kid) {
      await replaceCurrentSigningKey(
        deps.db,
        { kid: own.jwk.kid, public_jwk: own.jwk, private_key: null, source: 'config' },
        current?.kid ?? null,
      );
    }
    return { kid: own.jwk.kid, key: own.key };
  }
  if (current?.private_key) return usable(deps, current);
  // None yet, or the current one lived in a SIGNING_KEY that is no longer set: generate (once, whoever gets there
  // first).
  const fresh = await generateKey(deps);
  const row = current
    ? await replaceCurrentSigningKey(deps.db, fresh, current.kid)
    : await insertFirstSigningKey(deps.db, fresh);
  if (!row.private_key)
    throw new Error(
      "the current signing key lives in another process's SIGNING_KEY: set SIGNING_KEY on every process or on none",
    );
  return usable(deps, row);
}

/** Signs `bytes` (a string is taken as UTF-8) with the current key. */
export async function sign(deps: SigningDeps, bytes: Bytes): Promise<Signature> {
  const { kid, key } = await currentSigningKey(deps);
  return { kid, alg: 'EdDSA', signature: edSign(null, toBytes(bytes), key).toString('base64url') };
}

/** True when `signature` was made over `bytes` by a key this service published (current or retired). */
export async function verify(
  deps: Pick<SigningDeps, 'db'>,
  bytes: Bytes,
  signature: Pick<Signature, 'kid' | 'signature'>,
): Promise<boolean> {
  const jwk = publishedByKid.get(signature.kid) ?? (await publicSigningKey(deps.db, signature.kid));
  if (!jwk) return false;
  // A kid is the key's thumbprint, so a published key never changes under it: remember it (sandbox sessions verify on
  // every request).
  if (publishedByKid.size < 1000) publishedByKid.set(signature.kid, jwk);
  return verifyWithJwk(jwk, bytes, signature.signature);
}

const publishedByKid = new Map<string, PublicJwk>();

/**
 * The JWK Set: the current key first, then every retired one. Ensures a current key exists, so a new service publishes
 * the key it will sign with.
 */
export async function jwks(deps: SigningDeps): Promise<Jwks> {
  await currentSigningKey(deps);
  return { keys: await publishedSigningKeys(deps.db) };
}

/**
 * Makes a newly generated key current; the old one stays published. Refused
 * when SIGNING_KEY is set: then the operator rotates by changing it.
 */
export async function rotateSigningKey(deps: SigningDeps): Promise<PublicJwk> {
  if (deps.config.SIGNING_KEY)
    throw new Error('SIGNING_KEY is set: rotate by setting a new one (the old key stays published)');
  const row = await replaceCurrentSigningKey(deps.db, await generateKey(deps));
  return row.public_jwk;
}
