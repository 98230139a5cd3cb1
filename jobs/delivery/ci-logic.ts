import type { STAGE_STATUSES } from '../../shared/schemas/delivery-ops.js';

/** The deploy stage as logic.ts's `Stage` has it (declared here: logic.ts imports this file). */
export interface Stage {
  name: 'deploy';
  status: (typeof STAGE_STATUSES)[number];
  findings: string[];
  detail?: Record<string, unknown>;
}

type Obj = Record<string, any>;

/** Where a delivery's deploy runs on GitHub Actions: `metadata.ci` of the run, checked. */
export interface CiTarget {
  owner: string;
  repo: string;
  workflow: string;
  ref: string;
  /** The workflow's inputs as given (it must declare each, and `awp_run`: GitHub refuses undeclared inputs). */
  inputs: Record<string, string>;
  connectorId?: string;
  /** `onApproval`: a failed run rests at a gate where another member may have its failed jobs re-run. */
  rerun: 'onApproval' | 'never';
}

/** The CI run's part of a delivery: under way, or its outcome (CiOutcome of ci-follow.ts, as the step read it). */
export interface CiPhase {
  phase: 'running' | 'succeeded' | 'failed';
  stage: Stage;
  /** A failed run whose failed jobs may be re-run after an approval. */
  rerunOffered: boolean;
  outcome?: Obj;
}

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;
/** Re-runs of failed jobs one delivery may ask for: each needs its own approval. */
export const MAX_RERUNS = 2;

/** `metadata.ci` read into a target, a problem to report (the deploy stays a dry run), or null when absent. */
export function ciTargetOf(m: Obj): CiTarget | { problem: string } | null {
  const ci = m.ci as Obj | undefined;
  if (!ci || typeof ci !== 'object') return null;
  const [owner, repo] = typeof ci.repo === 'string' ? ci.repo.split('/', 2) : [];
  if (!owner || !repo || !NAME.test(owner) || !NAME.test(repo)) return { problem: 'ci.repo is owner/name' };
  const workflow = ci.workflow;
  if (typeof workflow !== 'string' || !/^([A-Za-z0-9_.-]+\.ya?ml|\d+)$/.test(workflow))
    return { problem: 'ci.workflow is a workflow file name (deploy.yml) or id' };
  const ref = typeof ci.ref === 'string' && ci.ref.trim() ? ci.ref.trim() : 'main';
  const inputs: Record<string, string> = {};
  for (const [k, v] of Object.entries((ci.inputs ?? {}) as Obj))
    if (v !== undefined && v !== null && typeof v !== 'object') inputs[k] = String(v);
  if (Object.keys(inputs).length > 9)
    return { problem: 'ci.inputs has at most 9 inputs (GitHub takes 10, awp_run one)' };
  return {
    owner,
    repo,
    workflow,
    ref,
    inputs,
    ...(typeof ci.connectorId === 'string' ? { connectorId: ci.connectorId } : {}),
    rerun: ci.rerunFailedJobs === 'onApproval' ? 'onApproval' : 'never',
  };
}

/** A failed job as the deploy stage shows it: name, failed steps, and the excerpt of its log. */
function jobFinding(j: Obj): string {
  const steps = Array.isArray(j.failedSteps) && j.failedSteps.length ? ` at ${j.failedSteps.join(', ')}` : '';
  const excerpt = typeof j.logExcerpt === 'string' ? `:\n${j.logExcerpt}` : ' (no log excerpt: the log is unavailable)';
  return `job ${j.name} ${j.conclusion ?? 'failed'}${steps}${excerpt}`;
}

/** The deploy stage while the workflow run is under way, and once it has an outcome. */
export function ciStage(t: Pick<CiTarget, 'owner' | 'repo' | 'workflow' | 'ref'>, connectorId: string, o?: Obj): Stage {
  const where = `${t.owner}/${t.repo} ${t.workflow} on ${t.ref}`;
  if (!o)
    return {
      name: 'deploy',
      status: 'running',
      findings: [`workflow_dispatch of ${where} sent through GitHub connector ${connectorId}; following its run`],
      detail: { repo: `${t.owner}/${t.repo}`, workflow: t.workflow, ref: t.ref },
    };
  const run = o.htmlUrl ?? (o.runId ? `run ${o.runId}` : 'the workflow run');
  const detail = { repo: `${t.owner}/${t.repo}`, workflow: t.workflow, ref: t.ref, run: o };
  if (o.state === 'succeeded')
    return {
      name: 'deploy',
      status: 'deployed',
      findings: [`${where}: ${run} (attempt ${o.attempt}) succeeded`],
      detail,
    };
  return {
    name: 'deploy',
    status: 'failed',
    findings: [
      o.error ? `${where}: ${o.error}` : `${where}: ${run} (attempt ${o.attempt}) concluded ${o.conclusion}`,
      ...((o.failedJobs ?? []) as Obj[]).map(jobFinding),
    ],
    detail,
  };
}

/** The CI phase from the step's resume: the run's outcome, else under way (just dispatched or re-run). */
export function ciPhaseOf(
  t: CiTarget,
  connectorId: string,
  outcome: Obj | undefined,
  reruns: number,
  refusedRerun = false,
): CiPhase {
  if (!outcome) return { phase: 'running', stage: ciStage(t, connectorId), rerunOffered: false };
  const stage = ciStage(t, connectorId, outcome);
  if (refusedRerun) stage.findings.push('the approver refused to re-run the failed jobs');
  const failed = outcome.state !== 'succeeded';
  return {
    phase: failed ? 'failed' : 'succeeded',
    stage,
    outcome,
    rerunOffered:
      failed &&
      !refusedRerun &&
      t.rerun === 'onApproval' &&
      !outcome.error &&
      Boolean(outcome.runId) &&
      reruns < MAX_RERUNS,
  };
}
