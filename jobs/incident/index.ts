import { routeGroup } from '../../shared/http/route-group.js';
import { IncidentRespond } from '../../shared/schemas/dev-delivery.js';
import { defineDomain } from '../domain.js';
import { vocabulary } from './vocabulary.js';

/** Default scopes of the domain's routes. */
const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('workflows', scopes);

/** Incident response: actions, approvals and timeline; mutating responses are approval-gated */
export const incident = defineDomain({
  name: 'incident',
  summary: 'Incident response: actions, approvals and timeline; mutating responses are approval-gated',
  pendingIssue: 16,
  scopes,
  vocabulary,
  routes: [
    r.post('/v1/incident/respond', 'Incident, actions, approvals and timeline; mutating responses are approval-gated', { countsAsWorkflow: true, body: IncidentRespond, mcpTool: 'incident.respond' }),
  ],
});
