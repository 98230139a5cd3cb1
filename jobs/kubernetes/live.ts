/**
 * A workload read live from its cluster and the one change a repair run proposes for it: the first concrete patch
 * of the findings (a strategic-merge patch naming the container), or, for a crash loop, the rollback to the previous
 * ReplicaSet's template. Every change is tried as a server-side dry run (`dryRun=All`) before anyone is asked.
 */
import { ask, patchDeployment, type Cluster } from './cluster.js';
import { repairReport, type RepairReport } from './logic.js';
import { currentRevision, rollbackPatch, rolloutHistory } from './rollout.js';

type Obj = Record<string, any>;

const plain = <T>(v: T): any => JSON.parse(JSON.stringify(v ?? null));

export interface LiveWorkload {
  deployment: Obj;
  pods: Obj[];
  events: Obj[];
  replicaSets: Obj[];
}

/** `app=web,tier=api` from a Deployment's `matchLabels` (its pods and ReplicaSets carry them). */
export function selectorOf(deployment: Obj): string {
  const labels = (deployment.spec?.selector?.matchLabels ?? {}) as Record<string, string>;
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** The Deployment, its pods, their events and its ReplicaSets, as the API answers them now. */
export async function readWorkload(c: Cluster, namespace: string, name: string): Promise<LiveWorkload> {
  const deployment = plain(
    await ask(`read deployment ${namespace}/${name}`, () => c.apps.readNamespacedDeployment({ name, namespace })),
  ) as Obj;
  const labelSelector = selectorOf(deployment);
  const [pods, events, replicaSets] = await Promise.all([
    ask(`list pods in namespace ${namespace}`, () => c.core.listNamespacedPod({ namespace, labelSelector })),
    ask(`list events in namespace ${namespace}`, () => c.core.listNamespacedEvent({ namespace })),
    ask(`list replica sets in namespace ${namespace}`, () =>
      c.apps.listNamespacedReplicaSet({ namespace, labelSelector }),
    ),
  ]);
  const podItems = plain(pods.items) as Obj[];
  const rsItems = plain(replicaSets.items) as Obj[];
  // Events of the workload only: its pods, its ReplicaSets and itself (a namespace's events are everyone's).
  const names = new Set([name, ...podItems.map((p) => p.metadata?.name), ...rsItems.map((r) => r.metadata?.name)]);
  const eventItems = (plain(events.items) as Obj[]).filter((e) => names.has(e.involvedObject?.name));
  return { deployment, pods: podItems, events: eventItems, replicaSets: rsItems };
}

export interface ProposedChange {
  kind: 'patch' | 'rollback';
  findingId: string | null;
  description: string;
  strategy: 'strategic' | 'merge';
  body: Obj;
  /** The revision the workload is at when the change is proposed (a rollback goes to the one before). */
  fromRevision: number;
  toRevision?: number;
}

/** The change a repair run proposes for `deployment/<name>`, or null when no finding has a complete one. */
export function proposeChange(report: RepairReport, w: LiveWorkload): ProposedChange | null {
  const workload = `deployment/${w.deployment.metadata?.name}`;
  const fromRevision = currentRevision(w.deployment, w.replicaSets);
  const patch = report.remediations.find((r) => r.mutating && r.target === workload && r.concrete && r.strategicPatch);
  if (patch)
    return {
      kind: 'patch',
      findingId: patch.findingId,
      description: patch.description,
      strategy: 'strategic',
      body: patch.strategicPatch!,
      fromRevision,
    };
  const crash = report.findings.find((f) => f.kind === 'CrashLoopBackOff' && f.workload === workload);
  const back = crash ? rollbackPatch(w.deployment, w.replicaSets, fromRevision) : null;
  if (!crash || !back) return null;
  return {
    kind: 'rollback',
    findingId: crash.findingId,
    description:
      `Roll ${workload} back to revision ${back.toRevision} (ReplicaSet ${back.replicaSet}) while the crash is ` +
      'fixed',
    strategy: 'merge',
    body: back.patch,
    fromRevision,
    toRevision: back.toRevision,
  };
}

export interface DryRunResult {
  accepted: boolean;
  message: string;
}

/** The change as a server-side dry run: what the API server (admission included) says of it; nothing persists. */
export async function dryRun(c: Cluster, namespace: string, name: string, change: ProposedChange) {
  try {
    await patchDeployment(c, namespace, name, change.body, { dryRun: true, strategy: change.strategy });
    return { accepted: true, message: 'the API server accepted the change as a dry run (dryRun=All)' };
  } catch (err) {
    const e = err as { status?: number; message: string };
    // A refusal of the change itself is the answer; the cluster being away is not (the step retries).
    if (e.status === 422 || e.status === 409) return { accepted: false, message: e.message };
    throw err;
  }
}

/** The report, the live read and the history a repair run shows. */
export function liveReport(w: LiveWorkload) {
  const report = repairReport(w.pods, w.events);
  return {
    report,
    history: rolloutHistory(w.deployment, w.replicaSets),
    revision: currentRevision(w.deployment, w.replicaSets),
  };
}
