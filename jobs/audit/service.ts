import type { Db } from '../../shared/db/knex.js';
import type { Deps } from '../../shared/deps.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { insertAudit, listAudit, type AuditEntry } from './repository.js';
import type { AuditLogQuery } from './schemas.js';

/**
 * Records who did what. Pass the transaction of the change being recorded
 * so the entry and the change commit together; the log is append-only in
 * Postgres (a trigger refuses updates and deletes).
 */
export async function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  await insertAudit(db, entry);
}

/** The entry's actor fields from a caller. */
export function actorOf(principal: Principal): Pick<AuditEntry, 'accountId' | 'memberId' | 'tokenId'> {
  return { accountId: principal.accountId, memberId: principal.memberId ?? null, tokenId: principal.tokenId };
}

export async function findAuditEntries(deps: Pick<Deps, 'db'>, principal: Principal, query: AuditLogQuery) {
  return listAudit(deps.db, principal.accountId, { ...query, limit: query.limit ?? 50 });
}
