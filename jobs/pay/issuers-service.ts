import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Deps } from '../../shared/deps.js';
import { conflict, invalidPayload, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { actorOf, recordAudit } from '../audit/index.js';
import { assertGoverning } from '../approvals/index.js';
import {
  getIssuer,
  insertIssuer,
  listIssuers,
  revokeIssuer,
  type IssuerJwk,
  type IssuerRow,
} from './issuers-repository.js';
import type { IssuerCreate } from './issuers-schemas.js';

export function issuerView(row: IssuerRow) {
  return {
    issuerId: row.id,
    entityId: row.entity_id,
    publicKey: row.public_key,
    status: row.revoked_at ? ('revoked' as const) : ('active' as const),
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

/** The key of a registered issuer; 400 when the JWK is not an Ed25519 public key. */
export function jwkKey(jwk: IssuerJwk): KeyObject {
  try {
    const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
    if (key.asymmetricKeyType === 'ed25519') return key;
  } catch {
    // falls through to the refusal below
  }
  throw invalidPayload('publicKey must be an Ed25519 public key as a JWK (kty OKP, crv Ed25519, x)', {
    path: '/publicKey',
  });
}

/** Registers an issuer whose signed mandates the account accepts: owner or admin only, recorded in the audit log. */
export async function registerIssuer(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  body: IssuerCreate,
): Promise<IssuerRow> {
  assertGoverning(principal, 'Registering a payment issuer');
  jwkKey(body.publicKey);
  return deps.db.transaction(async (trx) => {
    const row = await insertIssuer(trx, {
      id: newId('iss'),
      account_id: principal.accountId,
      entity_id: body.entityId,
      public_key: body.publicKey,
      created_by: principal.memberId ?? null,
    });
    await recordAudit(trx, {
      ...actorOf(principal),
      action: 'issuer.registered',
      resourceType: 'issuer',
      resourceId: row.id,
      details: { entityId: row.entity_id },
    });
    return row;
  });
}

export async function fetchIssuer(deps: Pick<Deps, 'db'>, principal: Principal, issuerId: string): Promise<IssuerRow> {
  const row = await getIssuer(deps.db, principal.accountId, issuerId);
  if (!row) throw notFound(`Issuer ${issuerId}`);
  return row;
}

export async function findIssuers(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  query: { limit?: number; cursor?: string },
) {
  return listIssuers(deps.db, principal.accountId, query.limit ?? 50, query.cursor);
}

/** Revokes an issuer's key: mandates it signs afterwards are refused (those already stored stay as granted). */
export async function revokeIssuerKey(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  issuerId: string,
): Promise<IssuerRow> {
  assertGoverning(principal, 'Revoking a payment issuer');
  return deps.db.transaction(async (trx) => {
    const row = await getIssuer(trx, principal.accountId, issuerId, true);
    if (!row) throw notFound(`Issuer ${issuerId}`);
    if (row.revoked_at) throw conflict(`Issuer ${issuerId} is already revoked`);
    await recordAudit(trx, {
      ...actorOf(principal),
      action: 'issuer.revoked',
      resourceType: 'issuer',
      resourceId: row.id,
      details: { entityId: row.entity_id },
    });
    return revokeIssuer(trx, row.id);
  });
}
