import { routeGroup } from '../../shared/http/route-group.js';
import { IncidentReport } from '../../shared/schemas/delivery-ops.js';
import { IncidentRespond } from '../../shared/schemas/dev-delivery.js';
import { respond } from './logic.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('workflows', scopes);

export const routes = [
  r.post('/v1/incident/respond', 'Incident, actions, approvals and timeline; mutating responses are approval-gated', {
    description:
      '`alerts`: Alertmanager webhook bodies (or their single alerts) and PagerDuty Events v2 events, mixed ' +
      'freely. `signals`: `errorRate` (0..1), `latencyP95Ms`, `latencyBaselineMs`, `customerImpact`, ' +
      '`regionDown`, `deploys` [{service, version, previousVersion, at}], `flags` [{flag, changedAt, ' +
      'service}]. Severity: sev1 = critical alert with customer impact, error rate ≥ 5 % or critical alerts ' +
      'on ≥ 2 services; sev2 = a critical alert, error rate ≥ 1 % or p95 ≥ 2× baseline; sev3 = an error or ' +
      'warning alert; sev4 = the rest. Mutating responses (rollback, scale, failover, flag off, restart) are ' +
      'listed in `approvals` and never performed.',
    countsAsWorkflow: true,
    body: IncidentRespond,
    response: { 200: IncidentReport },
    mcpTool: 'incident.respond',
    handler: ({ body }) => ({ ok: true, ...respond(body.alerts, body.signals ?? {}) }),
  }),
];
