import type { Deps } from '../../shared/deps.js';
import { conflict, invalidPayload, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { seal } from '../../shared/vault/index.js';
import { sealable, valueProblem, type Material } from './logic.js';
import {
  addVersion, deleteCredential, getCredential, insertCredential, listCredentials, setCredentialStatus, type CredentialRow,
} from './repository.js';
import type { CredentialCreate, CredentialKind, CredentialRotate } from './schemas.js';

/**
 * The credential vault's operations. A value is checked against its kind,
 * sealed under the account's data key and stored as ciphertext only; no
 * answer, error or event carries it. Another account's credential is not
 * found, exactly as one that does not exist. A cached OAuth2 access token
 * needs no forgetting: resolution reads the credential's row (status,
 * versions) before it looks at the cache.
 */

type VaultDeps = Pick<Deps, 'db' | 'config' | 'redis'>;

function checkedValue(kind: CredentialKind, value: unknown): Material {
  const problem = valueProblem(kind, value);
  if (problem) throw invalidPayload(problem, { problem: 'valueShape', kind });
  return value as Material;
}

export async function fetchCredential(deps: Pick<Deps, 'db'>, principal: Principal, name: string): Promise<CredentialRow> {
  const row = await getCredential(deps.db, principal.accountId, name);
  if (!row) throw notFound(`Credential ${name}`);
  return row;
}

export async function findCredentials(deps: Pick<Deps, 'db'>, principal: Principal, query: { limit?: number; cursor?: string }) {
  return listCredentials(deps.db, principal.accountId, query.limit ?? 50, query.cursor);
}

export async function createCredential(deps: VaultDeps, principal: Principal, body: CredentialCreate): Promise<CredentialRow> {
  const value = checkedValue(body.kind, body.value);
  const sealed = await seal(deps, principal.accountId, sealable(value));
  const row = await deps.db.transaction(async (trx) => insertCredential(
    trx, { id: newId('cred'), account_id: principal.accountId, name: body.name, kind: body.kind, metadata: body.metadata ?? {} }, sealed,
  ));
  if (!row) throw conflict(`Credential ${body.name} already exists in this account`, { name: body.name });
  return row;
}

/** A new version becomes current; the previous one stays usable (cred:NAME@version) for the grace period. */
export async function rotateCredential(deps: VaultDeps, principal: Principal, name: string, body: CredentialRotate): Promise<CredentialRow> {
  const current = await fetchCredential(deps, principal, name);
  const sealed = await seal(deps, principal.accountId, sealable(checkedValue(current.kind as CredentialKind, body.value)));
  const grace = body.graceHours ?? deps.config.CREDENTIAL_ROTATION_GRACE_HOURS;
  const row = await deps.db.transaction(async (trx) => {
    const locked = await getCredential(trx, principal.accountId, name, true);
    if (!locked) throw notFound(`Credential ${name}`);
    return addVersion(trx, locked, sealed, grace);
  });
  return row;
}

export async function setStatus(deps: VaultDeps, principal: Principal, name: string, status: CredentialRow['status']): Promise<CredentialRow> {
  const row = await deps.db.transaction(async (trx) => {
    const locked = await getCredential(trx, principal.accountId, name, true);
    if (!locked) throw notFound(`Credential ${name}`);
    return locked.status === status ? locked : setCredentialStatus(trx, locked.id, status);
  });
  return row;
}

export async function removeCredential(deps: VaultDeps, principal: Principal, name: string): Promise<CredentialRow> {
  const row = await deps.db.transaction(async (trx) => {
    const locked = await getCredential(trx, principal.accountId, name, true);
    if (!locked) throw notFound(`Credential ${name}`);
    await deleteCredential(trx, locked.id);
    return locked;
  });
  return row;
}
