/**
 * A Deployment's rollout read the way `kubectl rollout status` reads it, and its history as ReplicaSet revisions.
 * Pure: the cluster client (cluster.ts) fetches, this decides.
 */
import { mergePatchFrom } from './patches.js';

type Obj = Record<string, any>;

export type RolloutPhase = 'progressing' | 'complete' | 'failed';

export interface RolloutState {
  phase: RolloutPhase;
  /** Why, in kubectl's words ("2 of 3 updated replicas are available"). */
  message: string;
  generation: number;
  observedGeneration: number;
  replicas: number;
  updatedReplicas: number;
  availableReplicas: number;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * `complete`: the controller has seen the latest spec (observedGeneration ≥ generation) and every desired replica is
 * updated and available, none old left; `failed`: the `Progressing` condition says `ProgressDeadlineExceeded`;
 * otherwise `progressing`. `generation`: the one the change produced (a later edit by someone else is watched too).
 */
export function rolloutState(deployment: Obj, generation?: number): RolloutState {
  const spec = deployment.spec ?? {};
  const status = deployment.status ?? {};
  const wanted = Math.max(num(generation), num(deployment.metadata?.generation));
  const desired = spec.replicas === undefined ? 1 : num(spec.replicas);
  const base = {
    generation: wanted,
    observedGeneration: num(status.observedGeneration),
    replicas: num(status.replicas),
    updatedReplicas: num(status.updatedReplicas),
    availableReplicas: num(status.availableReplicas),
  };
  const progressing = ((status.conditions ?? []) as Obj[]).find((c) => c.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded')
    return {
      ...base,
      phase: 'failed',
      message: `deployment ${deployment.metadata?.name} exceeded its progress deadline: ${progressing.message ?? ''}`,
    };
  const say = (message: string): RolloutState => ({ ...base, phase: 'progressing', message });
  if (base.observedGeneration < wanted) return say('waiting for the deployment spec update to be observed');
  if (base.updatedReplicas < desired)
    return say(`${base.updatedReplicas} of ${desired} new replicas have been updated`);
  if (base.replicas > base.updatedReplicas)
    return say(`${base.replicas - base.updatedReplicas} old replicas are pending termination`);
  if (base.availableReplicas < base.updatedReplicas)
    return say(`${base.availableReplicas} of ${base.updatedReplicas} updated replicas are available`);
  return { ...base, phase: 'complete', message: `deployment ${deployment.metadata?.name} successfully rolled out` };
}

/** A ReplicaSet's revision (the `deployment.kubernetes.io/revision` annotation), 0 when it has none. */
export const revisionOf = (rs: Obj): number =>
  Number(rs.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? 0) || 0;

/** The ReplicaSets a Deployment owns, newest revision first. */
export function ownedReplicaSets(deployment: Obj, replicaSets: Obj[]): Obj[] {
  const uid = deployment.metadata?.uid;
  return replicaSets
    .filter((rs) =>
      ((rs.metadata?.ownerReferences ?? []) as Obj[]).some((o) => o.kind === 'Deployment' && o.uid === uid),
    )
    .sort((a, b) => revisionOf(b) - revisionOf(a));
}

/** Recent rollouts: each revision with its image(s), replicas and when it was made. */
export function rolloutHistory(deployment: Obj, replicaSets: Obj[]) {
  return ownedReplicaSets(deployment, replicaSets).map((rs) => ({
    revision: revisionOf(rs),
    replicaSet: String(rs.metadata?.name ?? ''),
    images: ((rs.spec?.template?.spec?.containers ?? []) as Obj[]).map((c) => String(c.image ?? '')),
    replicas: num(rs.status?.replicas),
    readyReplicas: num(rs.status?.readyReplicas),
    createdAt: rs.metadata?.creationTimestamp ?? null,
  }));
}

/** The Deployment's current revision (its own annotation, else its newest ReplicaSet's). */
export function currentRevision(deployment: Obj, replicaSets: Obj[]): number {
  const own = Number(deployment.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? 0);
  return own || revisionOf(ownedReplicaSets(deployment, replicaSets)[0] ?? {});
}

/**
 * The merge patch that rolls the Deployment back to the ReplicaSet before `fromRevision` (what `kubectl rollout undo`
 * does: the old ReplicaSet's pod template, without the `pod-template-hash` label the controller adds), or null when
 * there is no earlier revision.
 */
export function rollbackPatch(deployment: Obj, replicaSets: Obj[], fromRevision: number) {
  const previous = ownedReplicaSets(deployment, replicaSets).find((rs) => revisionOf(rs) < fromRevision);
  if (!previous) return null;
  // Plain JSON on both sides: the client's model objects carry absent fields as undefined, which a diff would miss.
  const plain = (v: unknown) => JSON.parse(JSON.stringify(v ?? {})) as Obj;
  const template = plain(previous.spec?.template);
  if (template.metadata?.labels) delete template.metadata.labels['pod-template-hash'];
  return {
    toRevision: revisionOf(previous),
    replicaSet: String(previous.metadata?.name ?? ''),
    patch: { spec: { template: mergePatchFrom(plain(deployment.spec?.template), template) } },
  };
}
