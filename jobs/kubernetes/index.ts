import { routeGroup } from '../../shared/http/route-group.js';
import { KubernetesRepair } from '../../shared/schemas/dev-delivery.js';
import { defineDomain } from '../domain.js';
import { vocabulary } from './vocabulary.js';

const r = routeGroup('workflows', { read: ['tools:use'], write: ['tools:use'] });

/** Kubernetes findings and approval-gated remediations; never mutates a live cluster */
export const kubernetes = defineDomain({
  name: 'kubernetes',
  summary: 'Kubernetes findings and approval-gated remediations; never mutates a live cluster',
  pendingIssue: 16,
  scopes: { read: ['tools:use'], write: ['tools:use'] },
  vocabulary,
  routes: [
    r.post('/v1/kubernetes/repair', 'Findings and approval-gated remediations; never mutates a live cluster', { countsAsWorkflow: true, body: KubernetesRepair, mcpTool: 'kubernetes.repair' }),
  ],
});
