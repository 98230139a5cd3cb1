import { iso } from '../../shared/db/knex.js';
import type { CredentialRow, VersionInfo } from './repository.js';

/** A credential as the API shows it: name, kind, metadata, versions and use; never a value. */
export function credentialView(row: CredentialRow, versions: VersionInfo[]) {
  return {
    name: row.name,
    kind: row.kind,
    status: row.status,
    ref: `cred:${row.name}`,
    metadata: row.metadata,
    currentVersion: row.current_version,
    versions: versions.map((v) => ({
      version: v.version,
      createdAt: iso(v.created_at)!,
      expiresAt: iso(v.expires_at),
    })),
    lastUsedAt: iso(row.last_used_at),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
