import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * The pure half of envelope encryption: AES-256-GCM with a random 12-byte
 * IV, for both wrapping data keys (under the master key) and sealing values
 * (under a data key). No I/O here; shared/vault/index.ts adds the key table.
 *
 * A sealed value is `awpv1:<dataKeyId>:<iv>:<ciphertext+tag>` (base64url
 * parts): it names the format version and the key that opens it, and the
 * prefix and key id are authenticated (GCM additional data), so a value
 * cannot be moved under another key id unnoticed.
 */

export const SEALED_PREFIX = 'awpv1:';
const SEALED = /^awpv1:(dk_[A-Za-z0-9_-]{1,64}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]{22,})$/;
const WRAPPED = /^([0-9a-f]{16}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]{22,})$/;
const KEY_FORMAT = /^[A-Za-z0-9+/]{43}=$/;

export class VaultError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VaultError';
  }
}

/** The 32 bytes of an AWP_MASTER_KEY value. Throws a message that never contains the value. */
export function parseMasterKey(base64: string): Buffer {
  const key = KEY_FORMAT.test(base64) ? Buffer.from(base64, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) {
    throw new VaultError('AWP_MASTER_KEY must be the base64 of 32 random bytes (openssl rand -base64 32)');
  }
  return key;
}

/** A short public id of a master key (a hash, not the key), stored beside each data key it wraps. */
export function masterKeyId(key: Buffer): string {
  return createHash('sha256').update('awp-master-key-id:').update(key).digest('hex').slice(0, 16);
}

function encrypt(key: Buffer, plaintext: Buffer, aad: string): { iv: string; body: string } {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return { iv: iv.toString('base64url'), body: body.toString('base64url') };
}

function decrypt(key: Buffer, iv: string, body: string, aad: string): Buffer {
  const raw = Buffer.from(body, 'base64url');
  if (raw.length < 17) throw new VaultError('sealed value is cut short');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  try {
    return Buffer.concat([decipher.update(raw.subarray(0, raw.length - 16)), decipher.final()]);
  } catch {
    throw new VaultError('sealed value does not open with its key (wrong key or altered)');
  }
}

/** A fresh data key, and its wrapped form `<masterKeyId>:<iv>:<ciphertext+tag>` for the table. */
export function newDataKey(master: Buffer, dataKeyId: string): { key: Buffer; wrapped: string } {
  const key = randomBytes(32);
  return { key, wrapped: wrapDataKey(master, dataKeyId, key) };
}

export function wrapDataKey(master: Buffer, dataKeyId: string, key: Buffer): string {
  const { iv, body } = encrypt(master, key, `wrap:${dataKeyId}`);
  return `${masterKeyId(master)}:${iv}:${body}`;
}

/** The master key id a wrapped data key names. */
export function wrappedBy(wrapped: string): string {
  const m = WRAPPED.exec(wrapped);
  if (!m) throw new VaultError('wrapped data key is malformed');
  return m[1]!;
}

export function unwrapDataKey(master: Buffer, dataKeyId: string, wrapped: string): Buffer {
  const m = WRAPPED.exec(wrapped);
  if (!m) throw new VaultError('wrapped data key is malformed');
  if (m[1] !== masterKeyId(master)) {
    throw new VaultError(`data key ${dataKeyId} is wrapped by master key ${m[1]}, not by the configured one`);
  }
  return decrypt(master, m[2]!, m[3]!, `wrap:${dataKeyId}`);
}

export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(SEALED_PREFIX);
}

/** The data key id a sealed value names. */
export function sealedKeyId(sealed: string): string {
  const m = SEALED.exec(sealed);
  if (!m) throw new VaultError('sealed value is malformed');
  return m[1]!;
}

export function sealWith(key: Buffer, dataKeyId: string, plaintext: string): string {
  const { iv, body } = encrypt(key, Buffer.from(plaintext, 'utf8'), `${SEALED_PREFIX}${dataKeyId}`);
  return `${SEALED_PREFIX}${dataKeyId}:${iv}:${body}`;
}

export function openWith(key: Buffer, sealed: string): string {
  const m = SEALED.exec(sealed);
  if (!m) throw new VaultError('sealed value is malformed');
  return decrypt(key, m[2]!, m[3]!, `${SEALED_PREFIX}${m[1]}`).toString('utf8');
}
