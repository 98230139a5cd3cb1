import { Type } from '@sinclair/typebox';
import { AnyObject, StringEnum } from './common.js';

const Str = (max = 200) => Type.String({ minLength: 1, maxLength: max });
const Files = Type.Record(Type.String(), Type.String(), { description: 'path → file contents' });
export const STRATEGIES = ['rolling', 'blue-green', 'canary', 'recreate'] as const;
export const Strategy = StringEnum(STRATEGIES);
export const DELIVERY_ENVIRONMENTS = ['staging', 'prod'] as const;
/** What a release gate reports; an absent gate is not a passed one. */
export const GATE_STATUSES = ['passed', 'failed', 'pending', 'approved', 'rejected', 'healthy', 'unhealthy'] as const;
export const GATE_NAMES = ['build', 'tests', 'security', 'approval', 'health'] as const;
const GateStatus = Type.Optional(StringEnum(GATE_STATUSES));
export const Artifacts = Type.Object(
  { build: GateStatus, tests: GateStatus, security: GateStatus, approval: GateStatus, health: GateStatus },
  { additionalProperties: true },
);

/** Where the deploy runs and whose commit the gates are read from: a GitHub Actions workflow (issue 33). */
export const CiTarget = Type.Object(
  {
    repo: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$', description: 'owner/name' }),
    workflow: Type.Optional(
      Type.String({ pattern: '^([A-Za-z0-9_.-]+\\.ya?ml|\\d+)$', description: 'the workflow file (deploy.yml) or id' }),
    ),
    ref: Type.Optional(Str(255)),
    inputs: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]), {
        maxProperties: 9,
        description:
          "the workflow's inputs; it must also declare `awp_run` (the correlation id) and show it in run-name",
      }),
    ),
    connectorId: Type.Optional(Str(100)),
    sha: Type.Optional(Type.String({ pattern: '^[0-9a-f]{7,40}$', description: 'the commit whose checks are gates' })),
    pullNumber: Type.Optional(Type.Integer({ minimum: 1, description: 'the pull request whose reviews are a gate' })),
    rerunFailedJobs: Type.Optional(StringEnum(['onApproval', 'never'] as const)),
  },
  { additionalProperties: false },
);

export const EnvironmentConfigure = Type.Object(
  { files: Files, repoUrl: Type.Optional(Str(2000)) },
  { $id: 'EnvironmentConfigureRequest', additionalProperties: true },
);
export const CicdPlan = Type.Object(
  {
    service: Str(),
    environment: Str(),
    version: Str(),
    strategy: Type.Optional(Strategy),
    artifacts: Type.Optional(Artifacts),
    previousVersion: Type.Optional(Str()),
    ci: Type.Optional(CiTarget),
  },
  { $id: 'CicdPlanRequest', additionalProperties: true },
);
export const KubernetesRepair = Type.Object(
  { pods: Type.Array(AnyObject, { maxItems: 1000 }), events: Type.Optional(Type.Array(AnyObject, { maxItems: 5000 })) },
  { $id: 'KubernetesRepairRequest', additionalProperties: true },
);
export const DeliveryRun = Type.Object(
  {
    service: Str(),
    environment: StringEnum(DELIVERY_ENVIRONMENTS),
    version: Str(),
    strategy: Type.Optional(Strategy),
    artifacts: Type.Optional(Artifacts),
    files: Type.Optional(Files),
    ci: Type.Optional(CiTarget),
  },
  { $id: 'DeliveryRunRequest', additionalProperties: true },
);
export const DeliveryResume = Type.Object(
  { approved: Type.Boolean() },
  { $id: 'DeliveryResumeRequest', additionalProperties: true },
);
