import { Type, type Static } from '@sinclair/typebox';
import { GATE_NAMES, GATE_STATUSES } from './dev-delivery.js';
import { Ok, StringEnum } from './common.js';

/**
 * Answers of the delivery-operations domains (environment, cicd, kubernetes,
 * incident, delivery) and their closed vocabularies. Requests are in
 * dev-delivery.ts. Objects stay open (`additionalProperties`) where the
 * analyzers add detail; the fields clients branch on are typed here.
 */
const Open = { additionalProperties: true };
const Strings = Type.Array(Type.String());

export const ENVIRONMENT_READINESS = ['ready', 'needsInput', 'blocked'] as const;
export const EnvironmentReadiness = StringEnum(ENVIRONMENT_READINESS);
export type EnvironmentReadiness = Static<typeof EnvironmentReadiness>;
export const SETUP_ACTIONS = [
  'installRuntime',
  'startServices',
  'provideSecrets',
  'installDependencies',
  'runScript',
] as const;

export const EnvironmentReport = Ok(
  {
    readiness: EnvironmentReadiness,
    reasons: Strings,
    runtimes: Type.Array(
      Type.Object(
        { name: Type.String(), version: Type.Union([Type.String(), Type.Null()]), source: Type.String() },
        Open,
      ),
    ),
    packageManagers: Type.Array(
      Type.Object(
        { name: Type.String(), ecosystem: Type.String(), lockfile: Type.Union([Type.String(), Type.Null()]) },
        Open,
      ),
    ),
    services: Type.Array(Type.Object({ name: Type.String(), version: Type.Union([Type.String(), Type.Null()]) }, Open)),
    secrets: Type.Array(Type.Object({ name: Type.String(), source: Type.String(), needsValue: Type.Boolean() })),
    setupSteps: Type.Array(
      Type.Object(
        {
          order: Type.Integer(),
          action: StringEnum(SETUP_ACTIONS),
          description: Type.String(),
          command: Type.Union([Type.String(), Type.Null()]),
        },
        Open,
      ),
    ),
    executed: Type.Literal(false, { description: 'The service runs none of the setup steps' }),
  },
  'EnvironmentReport',
);

export const PLAN_VERDICTS = ['ready', 'needsApproval', 'blocked'] as const;
export const PlanVerdict = StringEnum(PLAN_VERDICTS);
export type PlanVerdict = Static<typeof PlanVerdict>;
export const GATE_STATES = [...GATE_STATUSES, 'missing'] as const;

export const ReleasePlan = Ok(
  {
    verdict: PlanVerdict,
    reasons: Strings,
    gates: Type.Array(
      Type.Object({
        gate: StringEnum(GATE_NAMES),
        status: StringEnum(GATE_STATES),
        ok: Type.Boolean(),
        effect: StringEnum(['none', 'needsApproval', 'blocks'] as const),
        why: Type.String(),
      }),
    ),
    steps: Type.Array(Type.Object({ order: Type.Integer(), action: Type.String(), description: Type.String() }, Open)),
    rollback: Type.Object({ trigger: Type.String(), steps: Strings }, Open),
    gateSource: Type.Optional(
      Type.Union([
        Type.Object(
          {
            kind: Type.Literal('github'),
            repo: Type.String(),
            ref: Type.String(),
            sha: Type.Union([Type.String(), Type.Null()]),
            findings: Strings,
            ignored: Type.Array(Type.String(), { description: "the caller's gate statuses CI decided instead" }),
          },
          { ...Open, description: 'Where build, tests, security and approval were read: the commit on GitHub' },
        ),
        Type.Null(),
      ]),
    ),
  },
  'ReleasePlan',
);

export const KUBERNETES_VERDICTS = ['healthy', 'needsApproval', 'needsInvestigation'] as const;
export const KUBERNETES_FAILURES = [
  'CrashLoopBackOff',
  'OOMKilled',
  'ImagePullBackOff',
  'CreateContainerConfigError',
  'FailedScheduling',
  'ProbeFailure',
  'Evicted',
  'VolumeMountError',
] as const;
export const KubernetesFailure = StringEnum(KUBERNETES_FAILURES);
export type KubernetesFailure = Static<typeof KubernetesFailure>;

export const KubernetesReport = Ok(
  {
    verdict: StringEnum(KUBERNETES_VERDICTS),
    findings: Type.Array(
      Type.Object(
        {
          findingId: Type.String(),
          kind: KubernetesFailure,
          pod: Type.String(),
          namespace: Type.String(),
          cause: Type.String(),
          evidence: Strings,
        },
        Open,
      ),
    ),
    remediations: Type.Array(
      Type.Object(
        {
          findingId: Type.String(),
          description: Type.String(),
          mutating: Type.Boolean(),
          dryRunCommand: Type.Union([Type.String(), Type.Null()]),
        },
        Open,
      ),
    ),
    approvals: Type.Array(
      Type.Object({ findingId: Type.String(), action: Type.String(), reason: Type.String() }, Open),
    ),
    mutated: Type.Literal(false, { description: 'The service never changes a cluster' }),
  },
  'KubernetesReport',
);

export const INCIDENT_SEVERITIES = ['sev1', 'sev2', 'sev3', 'sev4'] as const;
export const INCIDENT_ACTION_KINDS = ['rollback', 'scale', 'failover', 'flagOff', 'restart'] as const;

export const IncidentReport = Ok(
  {
    incident: Type.Object(
      {
        severity: StringEnum(INCIDENT_SEVERITIES),
        severityRule: Type.String(),
        title: Type.String(),
        services: Strings,
        roles: Type.Array(Type.Object({ role: Type.String(), duty: Type.String() })),
      },
      Open,
    ),
    timeline: Type.Array(Type.Object({ at: Type.String(), event: Type.String() }, Open)),
    actions: Type.Array(Type.Object({ action: Type.String(), readOnly: Type.Literal(true) }, Open)),
    approvals: Type.Array(
      Type.Object(
        {
          kind: StringEnum(INCIDENT_ACTION_KINDS),
          action: Type.String(),
          reason: Type.String(),
          performed: Type.Literal(false),
        },
        Open,
      ),
    ),
  },
  'IncidentReport',
);

export const STAGE_NAMES = ['configure', 'validate', 'deploy', 'monitor', 'repair'] as const;
/** `dry run`: the deploy was planned, not performed (no CI connector, or autonomy asked for one). */
export const STAGE_STATUSES = [
  'passed',
  'failed',
  'skipped',
  'pending',
  'awaitingApproval',
  'dry run',
  // The deploy's CI run is under way (the run rests at awaitingCi until it ends).
  'running',
  'deployed',
  'blocked',
] as const;
export const DELIVERY_STATUSES = [
  'queued',
  'running',
  'awaitingApproval',
  'awaitingCi',
  'delivered',
  'dryRun',
  'blocked',
  'failed',
  'canceled',
] as const;

export const DeliveryStage = Type.Object(
  {
    name: StringEnum(STAGE_NAMES),
    status: StringEnum(STAGE_STATUSES),
    findings: Strings,
    detail: Type.Optional(Type.Object({}, Open)),
  },
  { $id: 'DeliveryStage' },
);

export const DeliveryAnswer = Ok(
  {
    runId: Type.String(),
    status: StringEnum(DELIVERY_STATUSES),
    stages: Type.Array(DeliveryStage),
    handoff: Type.Object({ to: Type.String(), message: Type.String() }, Open),
  },
  'DeliveryAnswer',
);

export const AUTONOMY_DECISIONS = ['autoApproved', 'needsGrant'] as const;
export const AutonomyAction = Type.Object(
  {
    action: Type.String(),
    decision: StringEnum(AUTONOMY_DECISIONS),
    status: Type.String(),
    reason: Type.Optional(Type.String()),
  },
  { $id: 'AutonomyAction', additionalProperties: true },
);

/** What the grant covered: each action's decision, the budget drawn, and what is left for a person. */
export const AutonomyReport = Type.Object(
  {
    autonomousToCompletion: Type.Boolean(),
    budgetUsed: Type.Integer(),
    actions: Type.Array(AutonomyAction),
    maxActions: Type.Integer(),
    needsGrant: Strings,
    reasons: Strings,
  },
  { $id: 'AutonomyReport' },
);

/** The spec's answer of POST /v1/orchestrator/autonomous: `ok`, `status`, `autonomy`, and the run as `result`. */
export const AutonomousAnswer = Ok(
  {
    status: StringEnum(DELIVERY_STATUSES),
    autonomy: AutonomyReport,
    result: Type.Object(
      {
        runId: Type.String(),
        mode: StringEnum(['delivery', 'environment'] as const),
        stages: Type.Array(DeliveryStage),
        handoff: Type.Object({ to: Type.String(), message: Type.String() }, Open),
      },
      { $id: 'AutonomousResult', additionalProperties: true },
    ),
  },
  'AutonomousAnswer',
);
