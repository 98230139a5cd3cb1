import { STRATEGIES } from '../../shared/schemas/dev-delivery.js';
import { releasePlanFor, type Strategy } from '../cicd/index.js';
import { respond } from '../incident/index.js';
import { repairReport } from '../kubernetes/index.js';
import type { StepHandler, StepOutcome } from '../step.js';
import type { AutonomyVerdict } from './autonomy.js';
import { decideUnderGrant, runGrant } from './grant-use.js';
import { environmentAutonomy } from './environment-mode.js';
import { gateAnswer, objectArray, stringRecord, text } from '../../shared/step-inputs.js';
import { planDelivery, type DeliveryContext, type DeliveryPlan } from './logic.js';
import { ciConnector, dispatchDeploy, validateAnalyzers } from './stage-inputs.js';
import { ciTargetOf } from './ci-logic.js';
import { ciDeployPhase, ciResumeOf } from './ci-step.js';
import { requireRunEffect } from '../orchestrator/index.js';

/** The actions of a delivery an autonomy grant must cover, in order: each stage the run performs. */
export const DELIVERY_ACTIONS = ['configure', 'validate', 'deploy', 'monitor'] as const;

function monitorFindings(m: Record<string, unknown>): DeliveryContext['monitor'] {
  const pods = objectArray(m.pods);
  const alerts = objectArray(m.alerts);
  const checked = [
    ...(pods.length ? [`${pods.length} pod(s)`] : []),
    ...(alerts.length ? [`${alerts.length} alert payload(s)`] : []),
  ];
  const k8s = pods.length ? repairReport(pods, objectArray(m.events)) : null;
  const inc = alerts.length ? respond(alerts, (m.signals as Record<string, unknown>) ?? {}) : null;
  const problems = [
    ...(k8s?.findings ?? []).map((f) => `${f.namespace}/${f.pod}: ${f.kind} — ${f.cause}`),
    ...(inc && inc.incident.status === 'active' ? [`${inc.incident.title} (${inc.incident.severityRule})`] : []),
  ];
  const remediations = [...(k8s?.approvals ?? []).map((a) => a.action), ...(inc?.approvals ?? []).map((a) => a.action)];
  return { checked, problems, remediations };
}

/** The autonomy part of the answer: each action with its decision and the status its stage reached. */
function autonomyView(verdict: AutonomyVerdict, plan: DeliveryPlan) {
  const statusOf = (action: string) => plan.stages.find((s) => s.name === action)?.status ?? 'pending';
  return {
    actions: verdict.decisions.map((d) => ({
      ...d,
      status: d.decision === 'autoApproved' ? statusOf(d.action) : 'awaitingApproval',
    })),
    budgetUsed: verdict.budgetUsed,
    maxActions: verdict.maxActions,
    needsGrant: verdict.needsGrant,
    reasons: verdict.reasons,
    autonomousToCompletion: verdict.granted && (plan.finalStatus === 'delivered' || plan.finalStatus === 'dryRun'),
  };
}

/**
 * The delivery step: builds the stages from what the environment and cicd
 * steps (and the migration and security analyzers) found, rests the run at
 * the deploy gate when an approval is needed, and on the resumed pass
 * deploys (through the CI connector as a bridge action; a dry run without
 * one), monitors and ends the run `delivered` or `blocked`.
 */
export const deliveryStep: StepHandler = async (input, deps) => {
  const m = input.metadata;
  // The grant comes from the account's records (an approver made it), never from the run's body.
  const runGrantOf = await runGrant(deps, input);
  if (m.mode === 'environment') return environmentAutonomy(input, deps, runGrantOf);
  const service = text(m.service) ?? 'service';
  const environment = text(m.environment) ?? 'staging';
  const version = text(m.version) ?? 'unversioned';
  const strategy = STRATEGIES.find((s) => s === m.strategy) as Strategy | undefined;
  // A run routed here without a cicd step (an orchestrator request) still gets its gates judged, fail closed.
  // Its gates are read from the CI as the cicd step reads them, when the run names a repository.
  const plan =
    input.prior.cicd ??
    (await releasePlanFor(deps, input.accountId, {
      service,
      environment,
      version,
      strategy,
      artifacts: stringRecord(m.artifacts),
      previousVersion: text(m.previousVersion),
      ci: m.ci && typeof m.ci === 'object' ? (m.ci as Record<string, unknown>) : undefined,
    }));
  // Resumed by its CI run, or at the re-run gate: the deploy itself was approved (or needed no approval) before.
  const answer = ciResumeOf(input) ? 'approved' : gateAnswer(input.resume);
  const target = ciTargetOf(m);
  const grant = runGrantOf?.grant;
  const autonomy =
    runGrantOf && !answer
      ? await decideUnderGrant(
          deps,
          input.runId,
          runGrantOf,
          DELIVERY_ACTIONS.map((action) => ({ action })),
        )
      : undefined;
  const dryRunAsked = grant ? grant.dryRun !== false : false;
  const { analyzers, unavailable } = validateAnalyzers(input.prior, stringRecord(m.files));
  const ctx: DeliveryContext = {
    runId: input.runId,
    service,
    environment,
    version,
    configure: input.prior.environment,
    plan,
    analyzers,
    unavailable,
    approval: answer ?? (autonomy?.granted ? 'granted' : 'pending'),
    autonomy,
    connector: await ciConnector(deps, input.accountId, input.runId, dryRunAsked, {
      connectorId: target && 'owner' in target ? target.connectorId : undefined,
      github: Boolean(target && 'owner' in target),
    }),
    monitor: monitorFindings(m),
  };
  let result = planDelivery(ctx);
  // The deploy goes ahead (no gate holds it) and a CI connector is there: send it, once per run, then say it went out.
  const ci = ctx.connector;
  const goesOut = ci && !dryRunAsked && result.stages.find((s) => s.name === 'deploy')?.status === 'dry run';
  if (ci && goesOut && ci.kind === 'github') {
    // A GitHub connector runs the deploy as a workflow run, followed to its end (ci-follow.ts); without a workflow
    // named (`ci`), nothing is sent and the run says why.
    const c = ci;
    const connector =
      target && 'owner' in target
        ? {
            ...c,
            ci: await ciDeployPhase(
              deps,
              input,
              () => requireRunEffect(deps, input, 'delivery.deploy'),
              c.connectorId,
              target,
            ),
          }
        : {
            ...c,
            note:
              `GitHub connector ${c.connectorId}: ` +
              (target ? target.problem : 'the run names no ci.repo and ci.workflow'),
          };
    result = planDelivery({ ...ctx, connector });
  } else if (ci && goesOut) {
    // The run acts within its grant: a live deploy needs delivery:write (and bridge:write for the connector call).
    const actor = await requireRunEffect(deps, input, 'delivery.deploy');
    const sent = await dispatchDeploy(deps, actor, input.runId, ci.connectorId, {
      service,
      environment,
      version,
      strategy: plan.strategy ?? strategy ?? null,
      runId: input.runId,
    });
    const connector =
      'actionId' in sent
        ? { ...ci, dispatched: true, note: `bridge action ${sent.actionId}` }
        : { ...ci, note: `CI connector ${ci.connectorId} refused the deploy: ${sent.refused}` };
    result = planDelivery({ ...ctx, connector });
  }
  const output = {
    mode: 'delivery',
    service,
    environment,
    version,
    stages: result.stages,
    handoff: result.handoff,
    ...(result.stages.find((st) => st.name === 'deploy')?.detail?.run
      ? { ci: result.stages.find((st) => st.name === 'deploy')!.detail!.run }
      : {}),
    idempotencyKey: input.runId,
    ...(grant ? { autonomy: autonomy ? autonomyView(autonomy, result) : { resolvedBy: answer } } : {}),
  };
  const outcome: StepOutcome = {
    output,
    evidence: result.stages.flatMap((s) =>
      s.findings.slice(0, 3).map((f) => ({
        claim: `${s.name}: ${f}`,
        source: `delivery stage ${s.name}`,
        sourceBound: s.name !== 'deploy',
      })),
    ),
    conversation: [
      `${service}@${version} → ${environment}: ${result.stages.map((s) => `${s.name} ${s.status}`).join(', ')}.`,
    ],
    openQuestions: result.gate ? [result.gate.question] : [],
  };
  if (result.wait === 'awaitingCi') {
    const deploy = result.stages.find((st) => st.name === 'deploy')!;
    return {
      ...outcome,
      suspend: { kind: 'awaitingCi', payload: { service, environment, version, ...deploy.detail } },
    };
  }
  if (result.gate)
    return {
      ...outcome,
      suspend: {
        kind: 'awaitingApproval',
        payload: {
          // A re-run of failed jobs deploys again: the account's policy for deploys decides who may approve it.
          gate: 'deploy',
          ...(result.gate.purpose ? { purpose: result.gate.purpose } : {}),
          question: result.gate.question,
          service,
          environment,
          version,
          ...(result.gate.needsGrant ? { needsGrant: result.gate.needsGrant } : {}),
        },
      },
    };
  return { ...outcome, finalStatus: result.finalStatus };
};
