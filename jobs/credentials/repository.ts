import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

/** Every SQL statement of the credential vault. Values are stored sealed only (shared/vault). */

export interface CredentialRow {
  id: string;
  account_id: string;
  name: string;
  kind: string;
  metadata: Record<string, unknown>;
  status: 'active' | 'disabled';
  current_version: number;
  last_used_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface VersionRow {
  credential_id: string;
  version: number;
  sealed_value: string;
  created_at: Date;
  expires_at: Date | null;
}

export type VersionInfo = Omit<VersionRow, 'sealed_value' | 'credential_id'>;

/** The account's credential by name; another account's is not found, exactly as a missing one. */
export async function getCredential(
  db: Db,
  accountId: string,
  name: string,
  forUpdate = false,
): Promise<CredentialRow | null> {
  const q = db('credentials').where({ account_id: accountId, name }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

export async function listCredentials(db: Db, accountId: string, limit: number, cursor?: string) {
  return page<CredentialRow>(db('credentials').where({ account_id: accountId }), limit, cursor);
}

/** Inserts a credential and its first version; null when the account already has one with that name. */
export async function insertCredential(
  trx: Db,
  row: Pick<CredentialRow, 'id' | 'account_id' | 'name' | 'kind' | 'metadata'>,
  sealedValue: string,
): Promise<CredentialRow | null> {
  const [created] = await trx('credentials')
    .insert({ ...row, metadata: JSON.stringify(row.metadata) })
    .onConflict(['account_id', 'name'])
    .ignore()
    .returning('*');
  if (!created) return null;
  await trx('credential_versions').insert({ credential_id: created.id, version: 1, sealed_value: sealedValue });
  return created;
}

/** Versions still usable (current, or previous within their grace period), newest first; never the values. */
export async function liveVersions(db: Db, credentialIds: string[]): Promise<Map<string, VersionInfo[]>> {
  const rows: VersionRow[] =
    credentialIds.length === 0
      ? []
      : await db('credential_versions')
          .select('credential_id', 'version', 'created_at', 'expires_at')
          .whereIn('credential_id', credentialIds)
          .andWhere((q) => {
            q.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now());
          })
          .orderBy('version', 'desc');
  const out = new Map<string, VersionInfo[]>();
  for (const r of rows)
    out.set(r.credential_id, [
      ...(out.get(r.credential_id) ?? []),
      { version: r.version, created_at: r.created_at, expires_at: r.expires_at },
    ]);
  return out;
}

/** The sealed value of a version, when it is still usable. */
export async function sealedVersion(db: Db, credentialId: string, version: number): Promise<string | null> {
  const row = await db('credential_versions')
    .where({ credential_id: credentialId, version })
    .andWhere((q) => {
      q.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now());
    })
    .first('sealed_value');
  return row?.sealed_value ?? null;
}

/** Adds version `next`, ends the current one's life after `graceHours`, drops versions already past theirs. */
export async function addVersion(
  trx: Db,
  row: CredentialRow,
  sealedValue: string,
  graceHours: number,
): Promise<CredentialRow> {
  const next = row.current_version + 1;
  await trx('credential_versions').where({ credential_id: row.id }).andWhere('expires_at', '<=', trx.fn.now()).delete();
  await trx('credential_versions')
    .where({ credential_id: row.id, version: row.current_version })
    .update({ expires_at: trx.raw('now() + make_interval(secs => ?)', [graceHours * 3600]) });
  await trx('credential_versions').insert({ credential_id: row.id, version: next, sealed_value: sealedValue });
  const [updated] = await trx('credentials')
    .where({ id: row.id })
    .update({ current_version: next, updated_at: trx.fn.now() })
    .returning('*');
  return updated;
}

/** Replaces the sealed value of one version in place (an OAuth2 provider that rotates refresh tokens). */
export async function replaceVersionValue(
  db: Db,
  credentialId: string,
  version: number,
  sealedValue: string,
): Promise<void> {
  await db('credential_versions').where({ credential_id: credentialId, version }).update({ sealed_value: sealedValue });
}

export async function setCredentialStatus(db: Db, id: string, status: CredentialRow['status']): Promise<CredentialRow> {
  const [row] = await db('credentials').where({ id }).update({ status, updated_at: db.fn.now() }).returning('*');
  return row;
}

export async function touchCredential(db: Db, id: string): Promise<void> {
  await db('credentials').where({ id }).update({ last_used_at: db.fn.now() });
}

export async function deleteCredential(db: Db, id: string): Promise<void> {
  await db('credentials').where({ id }).delete();
}
