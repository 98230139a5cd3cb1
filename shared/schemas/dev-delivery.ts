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
  },
  { $id: 'CicdPlanRequest', additionalProperties: true },
);
export const KubernetesRepair = Type.Object(
  { pods: Type.Array(AnyObject, { maxItems: 1000 }), events: Type.Optional(Type.Array(AnyObject, { maxItems: 5000 })) },
  { $id: 'KubernetesRepairRequest', additionalProperties: true },
);
export const IncidentRespond = Type.Object(
  { alerts: Type.Array(AnyObject, { maxItems: 1000 }), signals: Type.Optional(AnyObject) },
  { $id: 'IncidentRespondRequest', additionalProperties: true },
);
export const DeliveryRun = Type.Object(
  {
    service: Str(),
    environment: StringEnum(DELIVERY_ENVIRONMENTS),
    version: Str(),
    strategy: Type.Optional(Strategy),
    artifacts: Type.Optional(Artifacts),
    files: Type.Optional(Files),
  },
  { $id: 'DeliveryRunRequest', additionalProperties: true },
);
export const DeliveryResume = Type.Object(
  { approved: Type.Boolean() },
  { $id: 'DeliveryResumeRequest', additionalProperties: true },
);
