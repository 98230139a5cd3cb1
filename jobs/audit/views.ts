import type { AuditRow } from './repository.js';
import type { AuditEntryView } from './schemas.js';

export function auditView(row: AuditRow): AuditEntryView {
  return {
    id: row.id,
    at: row.at.toISOString(),
    memberId: row.member_id,
    tokenId: row.token_id,
    action: row.action,
    resourceType: row.resource_type,
    resourceId: row.resource_id,
    outcome: row.outcome as AuditEntryView['outcome'],
    details: row.details,
  };
}
