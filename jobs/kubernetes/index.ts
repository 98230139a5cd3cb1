import { routeGroup } from '../../shared/http/route-group.js';
import { KubernetesRepair } from '../../shared/schemas/dev-delivery.js';
import { defineDomain } from '../domain.js';
import { vocabulary } from './vocabulary.js';

/** Default scopes of the domain's routes. */
const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('workflows', scopes);

/** Kubernetes findings and approval-gated remediations; never mutates a live cluster */
export const kubernetes = defineDomain({
  name: 'kubernetes',
  summary: 'Kubernetes findings and approval-gated remediations; never mutates a live cluster',
  pendingIssue: 16,
  scopes,
  vocabulary,
  routes: [
    r.post('/v1/kubernetes/repair', 'Findings and approval-gated remediations; never mutates a live cluster', { countsAsWorkflow: true, body: KubernetesRepair, mcpTool: 'kubernetes.repair' }),
  ],
});
