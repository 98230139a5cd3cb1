import { routeGroup } from '../../shared/http/route-group.js';
import { KubernetesReport } from '../../shared/schemas/delivery-ops.js';
import { KubernetesRepair } from '../../shared/schemas/dev-delivery.js';
import { repairReport } from './logic.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('workflows', scopes);

export const routes = [
  r.post('/v1/kubernetes/repair', 'Findings and approval-gated remediations; never mutates a live cluster', {
    description:
      '`pods` are the items of `kubectl get pods -o json`, `events` those of `kubectl get events -o json`. ' +
      'Findings: CrashLoopBackOff (by exit code), OOMKilled, ImagePullBackOff/ErrImagePull (not found, ' +
      'unauthorized, rate limited), CreateContainerConfigError (missing ConfigMap/Secret or key), ' +
      'FailedScheduling (cpu, memory, taints, affinity), failing probes, evictions, volume mount errors. ' +
      'Remediations are JSON patches and `--dry-run` kubectl commands; every mutating one is listed in ' +
      '`approvals`. Nothing is sent to a cluster.',
    countsAsWorkflow: true,
    body: KubernetesRepair,
    response: { 200: KubernetesReport },
    mcpTool: 'kubernetes.repair',
    handler: ({ body }) => ({ ok: true, ...repairReport(body.pods, body.events ?? []) }),
  }),
];
