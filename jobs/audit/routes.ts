import { routeGroup } from '../../shared/http/route-group.js';
import { AuditLogPage, AuditLogQuery } from './schemas.js';
import { findAuditEntries } from './service.js';
import { auditView } from './views.js';

const r = routeGroup('audit', { read: ['audit:read'], write: ['audit:read'] });

export const routes = [
  r.get(
    '/v1/audit/log',
    "The account's append-only audit log, newest first: filters by member, action, resource and time",
    {
      query: AuditLogQuery,
      response: { 200: AuditLogPage },
      mcpTool: 'audit.log',
      handler: async ({ query, principal }, deps) => {
        const { rows, nextCursor } = await findAuditEntries(deps, principal, query);
        return { ok: true, entries: rows.map(auditView), nextCursor };
      },
    },
  ),
];
