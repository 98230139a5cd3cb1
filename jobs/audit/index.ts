/** The audit log: what other modules may use. */
export { recordAudit, actorOf } from './service.js';
export { auditOf, type AuditEntry, type AuditRow } from './repository.js';
export { auditView } from './views.js';
export { AuditEntryView } from './schemas.js';
