import type { Deps } from '../../shared/deps.js';
import type { StepInput, StepOutcome } from '../step.js';
import { decideUnderGrant, type RunGrant } from './grant-use.js';
import { decideAutonomy, type AutonomyGrant } from './autonomy.js';
import { gateAnswer } from '../../shared/step-inputs.js';
import type { Stage } from './logic.js';

type Obj = Record<string, any>;

/**
 * Autonomous environment setup: the environment step's setup steps are the
 * actions the grant must cover (commands need `allowCommands`; a secret's
 * value always needs a person). Granted, each step is listed as a dry run —
 * this service runs no command on anyone's machine — and the run is
 * `dryRun` (nothing is executed: never `delivered`); refused, the run rests at `awaitingApproval` naming what to grant.
 */
export async function environmentAutonomy(
  input: StepInput,
  deps: Pick<Deps, 'db'>,
  runGrant: RunGrant | undefined,
): Promise<StepOutcome> {
  const env = (input.prior.environment ?? {}) as Obj;
  const grant: AutonomyGrant = runGrant?.grant ?? { enabled: false };
  const answer = gateAnswer(input.resume);
  const steps = (env.setupSteps ?? []) as Obj[];
  const secretsNeeded = ((env.secrets ?? []) as Obj[]).filter((s) => s.needsValue).map((s) => s.name as string);
  const proposed = steps.map((s) => ({
    action: s.action,
    command: s.command ?? null,
    ...(s.action === 'provideSecrets' && secretsNeeded.length
      ? { personOnly: `values of ${secretsNeeded.join(', ')} must come from a person` }
      : {}),
  }));
  // An answered gate draws nothing: the person approved what the grant did not cover.
  const verdict =
    runGrant && !answer
      ? await decideUnderGrant(deps, input.runId, runGrant, proposed)
      : decideAutonomy(grant, proposed);
  const configure: Stage = {
    name: 'configure',
    status: env.readiness === 'blocked' ? 'blocked' : 'passed',
    findings: env.reasons ?? [],
    detail: { readiness: env.readiness, workdir: grant.workdir ?? null },
  };
  const proceed = answer === 'approved' || (answer === null && verdict.granted);
  const finalStatus =
    configure.status === 'blocked' || answer === 'rejected' ? 'blocked' : proceed ? 'dryRun' : undefined;
  const stepStatus = finalStatus === 'dryRun' ? 'dry run' : finalStatus === 'blocked' ? 'skipped' : 'awaitingApproval';
  const actions = verdict.decisions.map((d, i) => ({
    ...d,
    order: steps[i]?.order,
    status:
      d.decision === 'autoApproved' || answer === 'approved'
        ? stepStatus
        : finalStatus === 'blocked'
          ? 'skipped'
          : 'awaitingApproval',
  }));
  const handoff =
    finalStatus === 'dryRun'
      ? {
          to: 'operator',
          message:
            `dry run: ${steps.length} setup step(s) planned under the ` +
            `grant${grant.workdir ? ` for ${grant.workdir}` : ''}; no command was run`,
        }
      : finalStatus === 'blocked'
        ? {
            to: 'owner',
            message:
              configure.status === 'blocked'
                ? `the environment is blocked: ${(env.reasons ?? []).join('; ')}`
                : 'the setup was refused at the gate',
          }
        : {
            to: 'approver',
            message: `grant ${verdict.needsGrant.join(', ')} or approve: ${verdict.reasons.join('; ')}`,
            resume: `/v1/delivery/runs/${input.runId}/resume`,
          };
  const output = {
    mode: 'environment',
    stages: [configure],
    handoff,
    autonomy: {
      actions,
      budgetUsed: verdict.budgetUsed,
      maxActions: verdict.maxActions,
      needsGrant: answer ? [] : verdict.needsGrant,
      reasons: answer ? [] : verdict.reasons,
      autonomousToCompletion: verdict.granted && answer === null && finalStatus === 'dryRun',
    },
  };
  const outcome: StepOutcome = {
    output,
    evidence: [],
    conversation: [
      `Environment setup under autonomy: ${finalStatus ?? 'awaiting approval'} ` +
        `(${verdict.budgetUsed}/${verdict.maxActions} actions).`,
    ],
  };
  if (!finalStatus)
    return {
      ...outcome,
      openQuestions: [handoff.message],
      suspend: {
        kind: 'awaitingApproval',
        payload: { gate: 'autonomy', needsGrant: verdict.needsGrant, reasons: verdict.reasons },
      },
    };
  return { ...outcome, finalStatus };
}
