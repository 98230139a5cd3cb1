/**
 * The live repair run (issue 33): a workload read from its cluster, classified, one change proposed and accepted by a
 * server-side dry run, applied only once a second member approves (the engine's approval path: the submitter gets
 * 409 selfApproval) or an autonomy grant covers `kubernetes.patch`, then the rollout watched from a waitpoint
 * (`awaitingRollout`, re-checked by a delayed job, watch.ts) and rolled back to the previous ReplicaSet's template
 * when it fails. Each pass is one segment of the run; nothing waits inside a worker.
 */
import type { Deps } from '../../shared/deps.js';
import { AppError, invalidPayload } from '../../shared/errors.js';
import { gateAnswer, text } from '../../shared/step-inputs.js';
import { decideUnderGrant, runGrant } from '../delivery/index.js';
import type { StepInput, StepOutcome } from '../step.js';
import { openCluster, patchDeployment, type Cluster } from './cluster.js';
import { dryRun, liveReport, proposeChange, readWorkload, type ProposedChange } from './live.js';
import { currentRevision, rollbackPatch } from './rollout.js';
import { scheduleRolloutCheck } from './watch.js';

type Obj = Record<string, any>;

/** The action an autonomy grant names to let a repair run apply its change without a person. */
export const PATCH_ACTION = 'kubernetes.patch';
export const AWAITING_ROLLOUT = 'awaitingRollout';

export interface Target {
  credential: string;
  namespace: string;
  deployment: string;
}

/** The cluster a run names (`metadata.cluster`), or null for a run over pasted pods. */
export function targetOf(metadata: Record<string, unknown>): Target | null {
  const c = metadata.cluster as Obj | undefined;
  if (!c || typeof c !== 'object') return null;
  const credential = text(c.credential);
  const namespace = text(c.namespace);
  const deployment = text(c.deployment);
  if (!credential || !namespace || !deployment)
    throw invalidPayload('metadata.cluster needs credential (cred:NAME), namespace and deployment');
  return { credential, namespace, deployment };
}

const evidence = (t: Target, claim: string) => ({
  claim,
  source: `deployment ${t.namespace}/${t.deployment}`,
  sourceBound: true,
});

/** Applies the change for real and rests the run until its rollout ends. */
async function apply(
  deps: Deps,
  input: StepInput,
  c: Cluster,
  t: Target,
  change: ProposedChange,
  by: Obj,
): Promise<StepOutcome> {
  const applied = await patchDeployment(c, t.namespace, t.deployment, change.body, {
    dryRun: false,
    strategy: change.strategy,
  });
  const generation = Number(applied.metadata?.generation ?? 0);
  await scheduleRolloutCheck(deps, input.runId, input.accountId, 1);
  const prior = input.prior.kubernetes ?? {};
  return {
    output: {
      ...prior,
      applied: { ...by, generation, at: new Date().toISOString() },
      rollout: { phase: 'progressing' },
    },
    evidence: [evidence(t, `applied: ${change.description} (generation ${generation})`)],
    conversation: [`Applied ${change.kind} to deployment ${t.namespace}/${t.deployment}; watching its rollout.`],
    suspend: {
      kind: AWAITING_ROLLOUT,
      payload: {
        ...t,
        generation,
        change: { kind: change.kind, description: change.description, fromRevision: change.fromRevision },
        startedAt: new Date().toISOString(),
      },
    },
  };
}

/** The first pass: read, classify, propose, dry-run; then wait for a person unless a grant covers it. */
async function propose(deps: Deps, input: StepInput, c: Cluster, t: Target): Promise<StepOutcome> {
  const w = await readWorkload(c, t.namespace, t.deployment);
  const { report, history, revision } = liveReport(w);
  const change = proposeChange(report, w);
  const dry = change ? await dryRun(c, t.namespace, t.deployment, change) : null;
  const output = {
    mode: 'live',
    namespace: t.namespace,
    deployment: t.deployment,
    ...report,
    revision,
    history,
    change,
    dryRun: dry,
    mutated: false,
  };
  const base = {
    evidence: report.findings.map((f) => evidence(t, `${f.pod}: ${f.kind} (${f.container ?? 'pod'}) — ${f.cause}`)),
    conversation: [
      `Read ${report.podsRead} pod(s) of ${t.namespace}/${t.deployment} live: ${report.findings.length} finding(s); ` +
        (change ? `proposed: ${change.description}; dry run ${dry!.accepted ? 'accepted' : 'refused'}.` : 'no change.'),
    ],
  };
  if (!change || !dry!.accepted)
    return {
      output,
      ...base,
      openQuestions: change ? [`The API server refused the change as a dry run: ${dry!.message}`] : [],
    };
  const grant = await runGrant(deps, input);
  if (grant) {
    const verdict = await decideUnderGrant(deps, input.runId, grant, [{ action: PATCH_ACTION }]);
    if (verdict.granted)
      return apply(deps, { ...input, prior: { ...input.prior, kubernetes: output } }, c, t, change, {
        by: 'autonomy',
        grantId: grant.grantId,
      });
  }
  const question = `approve: ${change.description} on deployment ${t.namespace}/${t.deployment}? (dry run accepted)`;
  return {
    output,
    ...base,
    openQuestions: [question],
    suspend: { kind: 'awaitingApproval', payload: { question, ...t, change, dryRun: dry } },
  };
}

/** The rollout ended: repaired, or rolled back to the ReplicaSet before the change. */
async function settle(input: StepInput, c: Cluster, t: Target): Promise<StepOutcome> {
  const data = input.resume!.data ?? {};
  const prior = input.prior.kubernetes ?? {};
  const rollout = { phase: data.phase, message: data.message, state: data.state ?? null };
  if (data.phase === 'complete')
    return {
      output: { ...prior, rollout, mutated: true },
      evidence: [evidence(t, String(data.message))],
      conversation: [`Rollout of ${t.namespace}/${t.deployment} complete: ${String(data.message)}.`],
      finalStatus: 'repaired',
    };
  const w = await readWorkload(c, t.namespace, t.deployment);
  const change = (data.change ?? {}) as Obj;
  const back =
    change.kind === 'rollback'
      ? null
      : rollbackPatch(w.deployment, w.replicaSets, currentRevision(w.deployment, w.replicaSets));
  if (!back)
    throw new AppError(
      'conflict',
      `the rollout failed (${String(data.message)}) and there is no earlier revision to roll back to`,
    );
  await patchDeployment(c, t.namespace, t.deployment, back.patch, { dryRun: true, strategy: 'merge' });
  await patchDeployment(c, t.namespace, t.deployment, back.patch, { dryRun: false, strategy: 'merge' });
  return {
    output: {
      ...prior,
      rollout,
      rolledBack: { toRevision: back.toRevision, replicaSet: back.replicaSet },
      mutated: true,
    },
    evidence: [evidence(t, `rollout failed: ${String(data.message)}; rolled back to revision ${back.toRevision}`)],
    conversation: [`Rollout failed (${String(data.message)}); rolled back to revision ${back.toRevision}.`],
    openQuestions: [`The change did not roll out: ${String(data.message)}`],
    finalStatus: 'rolledBack',
  };
}

/** The step of a run that names a cluster. */
export async function liveRepair(input: StepInput, deps: Deps, t: Target): Promise<StepOutcome> {
  const c = await openCluster(deps, input.accountId, t.credential);
  if (input.resume?.kind === AWAITING_ROLLOUT) return settle(input, c, t);
  if (input.resume?.kind === 'awaitingApproval') {
    const prior = input.prior.kubernetes ?? {};
    if (gateAnswer(input.resume) !== 'approved')
      return {
        output: { ...prior, applied: null },
        evidence: [],
        conversation: ['The change was refused at the gate; nothing was applied.'],
        finalStatus: 'blocked',
      };
    const change = input.resume.data?.change as ProposedChange;
    return apply(deps, input, c, t, change, { by: 'approval', approvedBy: input.resume.data?.approvedBy ?? null });
  }
  return propose(deps, input, c, t);
}
