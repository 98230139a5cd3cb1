import type { AuditEntry } from '../engine-hooks.js';
import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';
import { newId } from '../../shared/ids.js';

export interface AuditRow {
  id: string;
  account_id: string;
  at: Date;
  member_id: string | null;
  token_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  outcome: string;
  details: Record<string, unknown>;
}

export type { AuditEntry };

/** Appends one entry; `db` may be the transaction of the change it records, so both land or neither. */
export async function insertAudit(db: Db, entry: AuditEntry): Promise<AuditRow> {
  const [row] = await db('audit_log')
    .insert({
      id: newId('aud'),
      account_id: entry.accountId,
      member_id: entry.memberId ?? null,
      token_id: entry.tokenId ?? null,
      action: entry.action,
      resource_type: entry.resourceType,
      resource_id: entry.resourceId ?? null,
      outcome: entry.outcome ?? 'ok',
      details: JSON.stringify(entry.details ?? {}),
    })
    .returning('*');
  return row;
}

export interface AuditFilter {
  memberId?: string;
  action?: string;
  resourceType?: string;
  resourceId?: string;
  since?: string;
  until?: string;
  limit: number;
  cursor?: string;
}

/**
 * The account's entries, newest first, filtered; an `action` ending in `.` or `*` matches a family (`credential.*`).
 */
export async function listAudit(db: Db, accountId: string, f: AuditFilter) {
  const q = db('audit_log').where({ account_id: accountId });
  if (f.memberId) q.andWhere('member_id', f.memberId);
  if (f.action) {
    if (f.action.endsWith('*')) q.andWhere('action', 'like', `${f.action.slice(0, -1).replace(/[%_\\]/g, '\\$&')}%`);
    else q.andWhere('action', f.action);
  }
  if (f.resourceType) q.andWhere('resource_type', f.resourceType);
  if (f.resourceId) q.andWhere('resource_id', f.resourceId);
  if (f.since) q.andWhere('at', '>=', f.since);
  if (f.until) q.andWhere('at', '<', f.until);
  return page<AuditRow>(q, f.limit, f.cursor);
}

/** Every entry about one resource (a run's approvals, for its proof pack), oldest first. */
export async function auditOf(
  db: Db,
  accountId: string,
  resourceType: string,
  resourceId: string,
): Promise<AuditRow[]> {
  return db('audit_log')
    .where({ account_id: accountId, resource_type: resourceType, resource_id: resourceId })
    .orderBy('id');
}
