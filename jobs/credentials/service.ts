import type { Db } from '../../shared/db/knex.js';
import type { Deps } from '../../shared/deps.js';
import { conflict, invalidPayload, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { seal } from '../../shared/vault/index.js';
import { actorOf, recordAudit } from '../audit/index.js';
import { isOAuth, sealable, valueProblem, type Material } from './logic.js';
import { checkEgressUrl } from '../../shared/http/egress.js';
import {
  addVersion,
  deleteCredential,
  getCredential,
  insertCredential,
  listCredentials,
  liveVersions,
  setCredentialStatus,
  type CredentialRow,
} from './repository.js';
import { credentialView } from './views.js';
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

/** One audit entry of a change, in its transaction: names and versions, never a value. */
function audit(trx: Db, principal: Principal, action: string, row: CredentialRow, details: Record<string, unknown>) {
  return recordAudit(trx, {
    ...actorOf(principal),
    action,
    resourceType: 'credential',
    resourceId: row.id,
    details: { name: row.name, ...details },
  });
}

function checkedValue(deps: Pick<Deps, 'config'>, kind: CredentialKind, value: unknown): Material {
  const problem = valueProblem(kind, value);
  if (problem) throw invalidPayload(problem, { problem: 'valueShape', kind });
  if (isOAuth(kind)) {
    try {
      checkEgressUrl(String((value as { tokenUrl: string }).tokenUrl), {
        allowPrivate: deps.config.AWP_ALLOW_PRIVATE_EGRESS,
        requireHttps: false,
      });
    } catch (err) {
      const why = (err as Error).message.replace(/^endpoint/, 'the token endpoint');
      throw invalidPayload(`/value/tokenUrl: ${why}`, { problem: 'tokenUrl', kind });
    }
  }
  return value as Material;
}

/** Credentials as the API shows them, with their live versions (never a value). */
export async function credentialViews(deps: Pick<Deps, 'db'>, rows: CredentialRow[]) {
  const versions = await liveVersions(
    deps.db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => credentialView(row, versions.get(row.id) ?? []));
}

export async function fetchCredential(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  name: string,
): Promise<CredentialRow> {
  const row = await getCredential(deps.db, principal.accountId, name);
  if (!row) throw notFound(`Credential ${name}`);
  return row;
}

export async function findCredentials(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  query: { limit?: number; cursor?: string },
) {
  return listCredentials(deps.db, principal.accountId, query.limit ?? 50, query.cursor);
}

export async function createCredential(
  deps: VaultDeps,
  principal: Principal,
  body: CredentialCreate,
): Promise<CredentialRow> {
  const value = checkedValue(deps, body.kind, body.value);
  const sealed = await seal(deps, principal.accountId, sealable(value));
  return deps.db.transaction(async (trx) => {
    const row = await insertCredential(
      trx,
      {
        id: newId('cred'),
        account_id: principal.accountId,
        name: body.name,
        kind: body.kind,
        metadata: body.metadata ?? {},
      },
      sealed,
    );
    if (!row) throw conflict(`Credential ${body.name} already exists in this account`, { name: body.name });
    await audit(trx, principal, 'credential.created', row, { kind: row.kind, version: 1 });
    return row;
  });
}

/** A new version becomes current; the previous one stays usable (cred:NAME@version) for the grace period. */
export async function rotateCredential(
  deps: VaultDeps,
  principal: Principal,
  name: string,
  body: CredentialRotate,
): Promise<CredentialRow> {
  const current = await fetchCredential(deps, principal, name);
  const sealed = await seal(
    deps,
    principal.accountId,
    sealable(checkedValue(deps, current.kind as CredentialKind, body.value)),
  );
  const grace = body.graceHours ?? deps.config.CREDENTIAL_ROTATION_GRACE_HOURS;
  const row = await deps.db.transaction(async (trx) => {
    const locked = await getCredential(trx, principal.accountId, name, true);
    if (!locked) throw notFound(`Credential ${name}`);
    const rotated = await addVersion(trx, locked, sealed, grace);
    await audit(trx, principal, 'credential.rotated', rotated, {
      version: rotated.current_version,
      previousVersion: locked.current_version,
      graceHours: grace,
    });
    return rotated;
  });
  return row;
}

export async function setStatus(
  deps: VaultDeps,
  principal: Principal,
  name: string,
  status: CredentialRow['status'],
  reason?: string,
): Promise<CredentialRow> {
  return deps.db.transaction(async (trx) => {
    const locked = await getCredential(trx, principal.accountId, name, true);
    if (!locked) throw notFound(`Credential ${name}`);
    if (locked.status === status) return locked;
    const row = await setCredentialStatus(trx, locked.id, status);
    await audit(
      trx,
      principal,
      status === 'disabled' ? 'credential.disabled' : 'credential.enabled',
      row,
      reason ? { reason } : {},
    );
    return row;
  });
}

export async function removeCredential(deps: VaultDeps, principal: Principal, name: string): Promise<CredentialRow> {
  const row = await deps.db.transaction(async (trx) => {
    const locked = await getCredential(trx, principal.accountId, name, true);
    if (!locked) throw notFound(`Credential ${name}`);
    await deleteCredential(trx, locked.id);
    await audit(trx, principal, 'credential.deleted', locked, { kind: locked.kind });
    return locked;
  });
  return row;
}
