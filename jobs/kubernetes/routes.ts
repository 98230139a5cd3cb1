import { routeGroup } from '../../shared/http/route-group.js';
import { KubernetesReport } from '../../shared/schemas/delivery-ops.js';
import { KubernetesRepair } from '../../shared/schemas/dev-delivery.js';
import { repairReport } from './logic.js';
import { KubernetesRunAnswer, KubernetesRunRequest } from './schemas.js';
import { startRepair } from './service.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('workflows', scopes);

export const routes = [
  r.post('/v1/kubernetes/repair', 'Findings and approval-gated remediations for pasted pods; changes nothing', {
    description:
      '`pods` are the items of `kubectl get pods -o json`, `events` those of `kubectl get events -o json`. ' +
      'Findings: CrashLoopBackOff (by exit code), OOMKilled, ImagePullBackOff/ErrImagePull (not found, ' +
      'unauthorized, rate limited), CreateContainerConfigError (missing ConfigMap/Secret or key), ' +
      'FailedScheduling (cpu, memory, taints, affinity), failing probes, evictions, volume mount errors, in every ' +
      "container, init containers included. Remediations are JSON patches addressing the finding's container, " +
      'the same as a strategic-merge patch naming it (`strategicPatch`), and `--dry-run` kubectl commands; every ' +
      'mutating one is listed in `approvals`. Nothing is sent to a cluster (POST /v1/kubernetes/runs reads one).',
    countsAsWorkflow: true,
    body: KubernetesRepair,
    response: { 200: KubernetesReport },
    mcpTool: 'kubernetes.repair',
    handler: ({ body }) => ({ ok: true, ...repairReport(body.pods, body.events ?? []) }),
  }),
  r.post('/v1/kubernetes/runs', 'Repair a Deployment live: read, classify, dry-run, apply on approval, watch', {
    description:
      'Starts a run that reads the Deployment, its pods (init containers included), events, ReplicaSets and ' +
      'rollout history through the Kubernetes API with the vault credential, classifies the failures and proposes ' +
      'one change (a strategic-merge patch naming the container, or for a crash loop the rollback to the previous ' +
      'ReplicaSet) that a server-side dry run (dryRun=All) must accept. The run then rests at `awaitingApproval`: ' +
      'POST /v1/runs/{runId}/resume {approved: true} by a member other than the submitter (409 selfApproval) ' +
      'applies it, or an autonomy grant covering `kubernetes.patch` (`grantId`) does. It then rests at ' +
      '`awaitingRollout` until the rollout completes (`repaired`) or fails (rolled back: `rolledBack`). A ' +
      'credential not in this account is 422.',
    countsAsWorkflow: true,
    body: KubernetesRunRequest,
    response: { 200: KubernetesRunAnswer, 202: KubernetesRunAnswer },
    mcpTool: 'kubernetes.run',
    handler: ({ body, principal }, deps) => startRepair(deps, principal, body),
  }),
];
