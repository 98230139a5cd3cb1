import type { STAGE_NAMES, STAGE_STATUSES } from '../../shared/schemas/delivery-ops.js';
import type { AutonomyVerdict } from './autonomy.js';
import type { CiPhase } from './ci-logic.js';

export type StageName = (typeof STAGE_NAMES)[number];
export type StageStatus = (typeof STAGE_STATUSES)[number];
export interface Stage {
  name: StageName;
  status: StageStatus;
  findings: string[];
  detail?: Record<string, unknown>;
}
export interface Handoff {
  to: 'approver' | 'operator' | 'owner' | 'onCall';
  message: string;
  [more: string]: unknown;
}

type Obj = Record<string, any>;

/** What the delivery step knows when it plans the rest of the run. */
export interface DeliveryContext {
  runId: string;
  service: string;
  environment: string;
  version: string;
  /** Output of the environment step (absent when the run had no files). */
  configure?: Obj;
  /** Output of the cicd step. */
  plan: Obj;
  /** Outputs of further analyzers of the validate stage (migration, security), by domain. */
  analyzers: Record<string, Obj>;
  /** Analyzers the files call for that this service does not run yet, with why. */
  unavailable: string[];
  /** `approved` / `rejected` by a resume, `granted` by autonomy, `pending` otherwise. */
  approval: 'pending' | 'approved' | 'rejected' | 'granted';
  autonomy?: AutonomyVerdict;
  /**
   * The account's CI connector (capability ci.trigger) and whether the deploy went out through it; null: none, a dry
   * run.
   */
  connector: { connectorId: string; kind?: string; dispatched: boolean; note: string; ci?: CiPhase } | null;
  /** Findings of the monitor stage (kubernetes and incident analyzers over what the run was given). */
  monitor: { checked: string[]; problems: string[]; remediations: string[] };
}

export interface DeliveryPlan {
  stages: Stage[];
  handoff: Handoff;
  /**
   * How the run ends here: `delivered` (a live deploy that succeeded), `dryRun` (nothing was deployed), `blocked` or
   * `failed` (the CI run failed); absent when it rests (at a gate, or following its CI run).
   */
  finalStatus?: 'delivered' | 'dryRun' | 'blocked' | 'failed';
  /** `rerunFailedJobs`: the gate asks for a re-run of a failed CI run's jobs, not for the deploy. */
  gate?: { question: string; needsGrant?: string[]; purpose?: 'rerunFailedJobs' };
  /** The run rests until its CI run has an outcome. */
  wait?: 'awaitingCi';
}

function configureStage(env: Obj | undefined): Stage {
  if (!env)
    return { name: 'configure', status: 'skipped', findings: ['no files were given: the environment was not checked'] };
  const runtimes = (env.runtimes ?? []).map((r: Obj) => `${r.name}${r.version ? ` ${r.version}` : ''}`).join(', ');
  const summary = `${runtimes || 'no runtime'}; ${(env.services ?? []).length} service(s)`;
  if (env.readiness === 'blocked')
    return { name: 'configure', status: 'blocked', findings: env.reasons ?? [], detail: { readiness: env.readiness } };
  // needsInput (secret values, an unpinned runtime) is for the target's operator to supply, not a reason to stop a
  // release.
  return {
    name: 'configure',
    status: 'passed',
    findings: [summary, ...(env.reasons ?? [])],
    detail: { readiness: env.readiness },
  };
}

function validateStage(ctx: DeliveryContext): Stage {
  const gates = (ctx.plan.gates ?? []) as Obj[];
  const findings = gates.map((g) => `${g.gate}: ${g.why}`);
  // The migration and security analyzers answer `verdict: pass | warn | block` (shared/schemas/analysis.ts); `block`
  // stops the release.
  const failedAnalyzers = Object.entries(ctx.analyzers).filter(([, o]) => o.verdict === 'block');
  findings.push(...failedAnalyzers.map(([d]) => `${d} analysis blocks the release`), ...ctx.unavailable);
  const blocked = ctx.plan.verdict === 'blocked' || failedAnalyzers.length > 0;
  return {
    name: 'validate',
    status: blocked ? 'failed' : 'passed',
    findings,
    detail: { verdict: ctx.plan.verdict, strategy: ctx.plan.strategy, analyzers: Object.keys(ctx.analyzers) },
  };
}

const skipped = (name: StageName, why: string): Stage => ({ name, status: 'skipped', findings: [why] });

/**
 * The stages of a delivery run from what the analyzers said: configure and
 * validate fail closed; production waits at the deploy gate for an approval
 * (or an autonomy grant); the deploy is live only through a CI connector and
 * otherwise a dry run that says so; monitor and repair follow it.
 */
export function planDelivery(ctx: DeliveryContext): DeliveryPlan {
  const target = `${ctx.service}@${ctx.version} to ${ctx.environment}`;
  const configure = configureStage(ctx.configure);
  const validate = validateStage(ctx);
  const stages: Stage[] = [configure, validate];
  const rest = (why: string) => [skipped('deploy', why), skipped('monitor', why), skipped('repair', why)];

  if (configure.status === 'blocked' || validate.status === 'failed') {
    const why = configure.status === 'blocked' ? 'the environment is blocked' : 'a release gate failed';
    const reasons = [
      ...(configure.status === 'blocked' ? configure.findings : []),
      ...(ctx.plan.reasons ?? []),
      ...validate.findings.filter((f) => / analysis blocks/.test(f)),
    ];
    return {
      stages: [...stages, ...rest(why)],
      finalStatus: 'blocked',
      handoff: { to: 'owner', message: `${target} is blocked: ${reasons.join('; ')}` },
    };
  }
  if (ctx.approval === 'rejected') {
    return {
      stages: [
        ...stages,
        { name: 'deploy', status: 'blocked', findings: ['the approver refused the deploy'] },
        skipped('monitor', 'nothing was deployed'),
        skipped('repair', 'nothing was deployed'),
      ],
      finalStatus: 'blocked',
      handoff: { to: 'owner', message: `the deploy of ${target} was refused at the gate; nothing was deployed` },
    };
  }
  // Production always waits for a person (or a grant): an `approval` the run's own body claims opens no gate.
  const needsApproval =
    ctx.plan.verdict === 'needsApproval' ||
    ctx.plan.production === true ||
    (ctx.autonomy !== undefined && !ctx.autonomy.granted);
  if (needsApproval && ctx.approval === 'pending') {
    const needsGrant = ctx.autonomy && !ctx.autonomy.granted ? ctx.autonomy.needsGrant : undefined;
    const question = needsGrant
      ? `autonomy does not cover ${needsGrant.join(', ')} (${ctx.autonomy!.reasons.join('; ')}): approve the ` +
        `deploy of ${target}?`
      : `approve the deploy of ${target}?`;
    return {
      stages: [
        ...stages,
        { name: 'deploy', status: 'awaitingApproval', findings: [question] },
        { name: 'monitor', status: 'pending', findings: [] },
        { name: 'repair', status: 'pending', findings: [] },
      ],
      gate: { question, ...(needsGrant ? { needsGrant } : {}) },
      handoff: {
        to: 'approver',
        message:
          `${question} POST /v1/delivery/runs/${ctx.runId}/resume with {"approved": true} deploys, false ends ` +
          `the run blocked`,
        resume: `/v1/delivery/runs/${ctx.runId}/resume`,
      },
    };
  }
  const ci = ctx.connector?.ci;
  if (ci && ci.phase !== 'succeeded') return ciRest(ctx, stages, ci, target);
  // Live: dispatched through a connector that cannot be followed, or a followed CI run that succeeded.
  const live = ctx.connector?.dispatched === true || ci?.phase === 'succeeded';
  const steps = ((ctx.plan.steps ?? []) as Obj[]).map((s) => s.description as string);
  const deploy: Stage = ci
    ? ci.stage
    : live
      ? {
          name: 'deploy',
          status: 'deployed',
          findings: [
            `dispatched through CI connector ${ctx.connector!.connectorId} (${ctx.connector!.note}; its id is ` +
              `the Idempotency-Key the CI sees on every attempt)`,
          ],
          detail: { idempotencyKey: ctx.runId, steps },
        }
      : {
          name: 'deploy',
          status: 'dry run',
          findings: [
            `dry run: ` +
              `${ctx.connector ? ctx.connector.note : 'no CI connector (capability ci.trigger) is configured'}; ` +
              `nothing was deployed`,
            ...steps,
          ],
          detail: { idempotencyKey: ctx.runId, steps },
        };
  const monitor: Stage = ctx.monitor.problems.length
    ? { name: 'monitor', status: 'failed', findings: ctx.monitor.problems, detail: { checked: ctx.monitor.checked } }
    : {
        name: 'monitor',
        status: 'passed',
        findings: ctx.monitor.checked.length
          ? [`checked ${ctx.monitor.checked.join(', ')}: no problem found`]
          : [
              `health gate is ${ctx.plan.gates?.find((g: Obj) => g.gate === 'health')?.status ?? 'unknown'}; ` +
                `no pods or alerts were given to watch`,
            ],
        detail: { checked: ctx.monitor.checked },
      };
  const mode = live ? 'live' : 'dry run';
  if (monitor.status === 'failed') {
    const rollback = (ctx.plan.rollback?.steps ?? []) as string[];
    return {
      stages: [
        ...stages,
        deploy,
        monitor,
        {
          name: 'repair',
          status: 'blocked',
          findings: [
            'proposed, not performed; each needs an approval',
            ...ctx.monitor.remediations,
            ...rollback.map((s) => `rollback: ${s}`),
          ],
        },
      ],
      finalStatus: 'blocked',
      handoff: {
        to: 'onCall',
        message:
          `${mode}: ${target} is unhealthy after deploy (${monitor.findings.join('; ')}); approve a ` +
          `remediation or the rollback`,
        mode,
      },
    };
  }
  return {
    stages: [...stages, deploy, monitor, skipped('repair', 'nothing to repair')],
    // A deploy that did not go out is no delivery: the run says it was a dry run.
    finalStatus: live ? 'delivered' : 'dryRun',
    handoff: {
      to: 'operator',
      message: ci
        ? `${target} was deployed: ${ci.stage.findings[0]}`
        : live
          ? `${target} was dispatched through the CI connector (idempotency key ${ctx.runId}); watch its rollout`
          : `dry run: ${target} was planned and validated, nothing was deployed; configure a CI connector ` +
            `(ci.trigger) to deploy live`,
      mode,
    },
  };
}

/** A delivery whose CI run is under way (rest until it ends) or failed (a re-run gate, or the end). */
function ciRest(ctx: DeliveryContext, stages: Stage[], ci: CiPhase, target: string): DeliveryPlan {
  if (ci.phase === 'running')
    return {
      stages: [...stages, ci.stage, { name: 'monitor', status: 'pending', findings: [] }, skipped('repair', 'not yet')],
      wait: 'awaitingCi',
      handoff: { to: 'operator', message: `${target}: ${ci.stage.findings[0]}; the run rests until it ends` },
    };
  const monitor = skipped('monitor', 'the deploy failed: nothing to watch');
  if (ci.rerunOffered) {
    const question = `the CI run of ${target} failed: re-run its failed jobs?`;
    return {
      stages: [...stages, ci.stage, monitor, { name: 'repair', status: 'awaitingApproval', findings: [question] }],
      gate: { question, purpose: 'rerunFailedJobs' },
      handoff: {
        to: 'approver',
        message:
          `${question} POST /v1/delivery/runs/${ctx.runId}/resume with {"approved": true} re-runs them (another ` +
          `member than the submitter), false ends the run failed`,
        resume: `/v1/delivery/runs/${ctx.runId}/resume`,
      },
    };
  }
  return {
    stages: [...stages, ci.stage, monitor, skipped('repair', 'no re-run was offered or approved')],
    finalStatus: 'failed',
    handoff: { to: 'owner', message: `${target} failed in CI: ${ci.stage.findings.join('; ').slice(0, 2000)}` },
  };
}
