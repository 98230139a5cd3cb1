import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import { invalidPayload, policyViolation } from '../../shared/errors.js';
import type { MandateCreate } from './mandate-schemas.js';

/**
 * The issuer's signature on a mandate: Ed25519 over the RFC 8785 canonical
 * JSON of the mandate body exactly as sent, without `issuer.signature`. The
 * body reaches here untouched (its schema declares no defaults), so the
 * issuer signs what it sends and nothing has to be rebuilt field by field.
 */

// DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it.
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const BASE64ISH = /^[A-Za-z0-9+/_-]+={0,2}$/;

function decodeBase64(text: string): Buffer | null {
  const trimmed = text.trim();
  return BASE64ISH.test(trimmed) ? Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64') : null;
}

/** An Ed25519 public key from raw 32 bytes (base64url or base64) or an SPKI PEM; 400 for anything else. */
export function issuerKey(publicKey: string): KeyObject {
  try {
    if (publicKey.includes('-----BEGIN')) {
      const key = createPublicKey(publicKey);
      if (key.asymmetricKeyType === 'ed25519') return key;
    } else {
      const raw = decodeBase64(publicKey);
      if (raw?.length === 32)
        return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' });
    }
  } catch {
    // falls through to the refusal below
  }
  throw invalidPayload(
    'issuer.publicKey must be an Ed25519 public key: the raw 32 bytes in base64url or base64, or an SPKI PEM',
    { path: '/issuer/publicKey' },
  );
}

/** The exact text an issuer signs for `body`. */
export function signedPayloadOf(body: MandateCreate): string {
  const { signature: _signature, ...issuer } = body.issuer ?? {};
  return canonicalize({ ...body, ...(body.issuer ? { issuer } : {}) })!;
}

/**
 * Checks the issuer's signature when there is one, against the keys the
 * account registered for that issuer (never a key the mandate carries):
 * 422 `unknownIssuer` when it has none, 400 for a malformed signature, 422
 * `badIssuerSignature` when no registered key verifies it. Returns the
 * signed payload and the index of the key that verified, or null unsigned.
 */
export function verifyIssuerSignature(body: MandateCreate, keys: KeyObject[]): { payload: string; key: number } | null {
  const signature = body.issuer?.signature;
  if (signature === undefined) return null;
  const entityId = body.issuer!.entityId;
  const bytes = decodeBase64(signature);
  if (bytes?.length !== 64)
    throw invalidPayload('issuer.signature must be a 64-byte Ed25519 signature in base64url or base64', {
      path: '/issuer/signature',
    });
  if (keys.length === 0) {
    throw policyViolation(
      `Issuer ${entityId} is not registered on this account: an owner or admin registers its key with POST ` +
        `/v1/pay/issuers`,
      { reason: 'unknownIssuer', entityId },
    );
  }
  const payload = signedPayloadOf(body);
  const key = keys.findIndex((k) => verify(null, Buffer.from(payload, 'utf8'), k, bytes));
  if (key < 0) {
    throw policyViolation(
      `The issuer's signature (${entityId}) does not verify with any key registered for it, over the ` +
        `mandate's canonical JSON (RFC 8785, without issuer.signature)`,
      { reason: 'badIssuerSignature', entityId },
    );
  }
  return { payload, key };
}
