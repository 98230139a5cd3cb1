import type { Deps } from '../../shared/deps.js';
import type { Principal } from '../../shared/schemas/auth.js';
import type { StepInput } from '../step.js';
import { startCiDeploy, startRerun } from './ci-follow.js';
import { ciPhaseOf, ciStage, type CiPhase, type CiTarget } from './ci-logic.js';

type Obj = Record<string, any>;

/** Whether the step resumes from its CI run (`awaitingCi`) or from the gate that offers a re-run of failed jobs. */
export function ciResumeOf(input: Pick<StepInput, 'resume'>): 'outcome' | 'rerunGate' | null {
  if (input.resume?.kind === 'awaitingCi') return 'outcome';
  if (input.resume?.kind === 'awaitingApproval' && input.resume.data?.purpose === 'rerunFailedJobs') return 'rerunGate';
  return null;
}

/**
 * The deploy's CI phase on this pass of the step: the first pass dispatches the workflow and follows it; the pass
 * the follow resumes reads the run's outcome; the pass after the re-run gate re-runs the failed jobs when a member
 * other than the submitter approved (the resume route's separation of duties), or ends with the failure.
 */
export async function ciDeployPhase(
  deps: Deps,
  input: StepInput,
  actor: () => Promise<Principal>,
  connectorId: string,
  target: CiTarget,
): Promise<CiPhase> {
  const why = ciResumeOf(input);
  if (why === 'outcome') {
    const outcome = input.resume!.data!.ci as Obj;
    return ciPhaseOf(target, connectorId, outcome, Number(outcome?.attempt ?? 1) - 1);
  }
  if (why === 'rerunGate') {
    const before = (input.prior.delivery as Obj | undefined)?.ci as Obj | undefined;
    const approved = input.resume!.data?.approved === true || input.resume!.action === 'approve';
    if (!approved || !before) return ciPhaseOf(target, connectorId, before ?? { state: 'failed' }, 0, true);
    const sent = await startRerun(deps, await actor(), input.runId);
    if ('refused' in sent) {
      const phase = ciPhaseOf(target, connectorId, before, Number.MAX_SAFE_INTEGER);
      phase.stage.findings.push(`the re-run was refused: ${sent.refused}`);
      return phase;
    }
    const stage = ciStage(target, connectorId);
    stage.findings = [`re-running the failed jobs of ${before.htmlUrl ?? `run ${before.runId}`} (approved); following`];
    return { phase: 'running', stage, rerunOffered: false };
  }
  const sent = await startCiDeploy(deps, await actor(), input.runId, connectorId, target);
  if ('refused' in sent) {
    const failed = { state: 'failed', runId: null, attempt: 1, error: `the dispatch was refused: ${sent.refused}` };
    return ciPhaseOf(target, connectorId, failed, 0);
  }
  return ciPhaseOf(target, connectorId, undefined, 0);
}
