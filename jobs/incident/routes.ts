import { routeGroup } from '../../shared/http/route-group.js';
import {
  IncidentList,
  IncidentListQuery,
  IncidentNote,
  IncidentOne,
  IncidentRespondAnswer,
  IncidentRespondBody,
  IncidentRoleAssign,
  IncidentStatusUpdate,
} from './schemas.js';
import { addNote, assignRole, fetchIncident, findIncidents, moveIncident, respondToAlerts } from './service.js';
import { incidentDetail, incidentView } from './views.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('workflows', scopes);
const records = routeGroup('incidents', scopes);

export const routes = [
  r.post('/v1/incident/respond', 'Open or update the incident of an alert; page once, post status, keep a timeline', {
    description:
      '`alerts`: Alertmanager webhook bodies (or their single alerts) and PagerDuty Events v2 events, mixed ' +
      'freely. `signals`: `errorRate` (0..1), `latencyP95Ms`, `latencyBaselineMs`, `customerImpact`, ' +
      '`regionDown`, `deploys` [{service, version, previousVersion, at}], `flags` [{flag, changedAt, ' +
      'service}]. Severity: sev1 = critical alert with customer impact, error rate ≥ 5 % or critical alerts ' +
      'on ≥ 2 services; sev2 = a critical alert, error rate ≥ 1 % or p95 ≥ 2× baseline; sev3 = an error or ' +
      'warning alert; sev4 = the rest. Mutating responses (rollback, scale, failover, flag off, restart) are ' +
      "listed in `approvals` and never performed. The incident (`record`) is the open one of the alert's " +
      "fingerprint (Alertmanager groupKey, else the alert's fingerprint or PagerDuty dedup_key), or a new one " +
      "(`created`); the same alert again updates it. A sev1/sev2 incident pages once through the account's " +
      'PagerDuty connector (incident.page); with `chat.channel` each status change is posted once through its ' +
      'msg.chat connector. Alerts that all resolved resolve it (with a postmortem draft); resolved alerts ' +
      'with no open incident record nothing (`record: null`). `runIds` (yours, else 404) are linked. A ' +
      'payload with no readable alert is 400.',
    countsAsWorkflow: true,
    body: IncidentRespondBody,
    response: { 200: IncidentRespondAnswer },
    mcpTool: 'incident.respond',
    handler: async ({ body, principal }, deps) => {
      const { report, created, record } = await respondToAlerts(deps, principal, body);
      return { ok: true, ...report, created, record: record ? incidentDetail(record) : null };
    },
  }),
  records.get('/v1/incidents', 'List incidents, newest first (filter: status; cursor pagination)', {
    query: IncidentListQuery,
    response: { 200: IncidentList },
    mcpTool: 'incidents.list',
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findIncidents(deps, principal, query);
      return { ok: true, incidents: rows.map(incidentView), nextCursor };
    },
  }),
  records.get('/v1/incidents/{incidentId}', 'An incident with its timeline, roles, linked runs and postmortem', {
    response: { 200: IncidentOne },
    mcpTool: 'incidents.get',
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      incident: incidentDetail(await fetchIncident(deps, principal, params.incidentId)),
    }),
  }),
  records.post('/v1/incidents/{incidentId}/status', 'Acknowledge, mitigate or resolve an incident', {
    description:
      'Moves through the incident table (triggered → acknowledged | mitigated | resolved; acknowledged → ' +
      'mitigated | resolved; mitigated → resolved); another move is 409 with `details.allowed`. Acknowledge and ' +
      'resolve follow a page with PagerDuty acknowledge and resolve events; each change is posted once to the ' +
      "incident's chat channel; resolving drafts the postmortem from the timeline.",
    body: IncidentStatusUpdate,
    response: { 200: IncidentOne },
    mcpTool: 'incidents.status',
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      incident: incidentDetail(await moveIncident(deps, principal, params.incidentId, body.status, body.note)),
    }),
  }),
  records.post('/v1/incidents/{incidentId}/roles', 'Assign a role (commander, comms, scribe, …) or unassign it', {
    body: IncidentRoleAssign,
    response: { 200: IncidentOne },
    mcpTool: 'incidents.assignRole',
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      incident: incidentDetail(await assignRole(deps, principal, params.incidentId, body.role, body.assignee)),
    }),
  }),
  records.post('/v1/incidents/{incidentId}/notes', 'Add a note to the timeline', {
    body: IncidentNote,
    response: { 200: IncidentOne },
    mcpTool: 'incidents.note',
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      incident: incidentDetail(await addNote(deps, principal, params.incidentId, body.text)),
    }),
  }),
];
