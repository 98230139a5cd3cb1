import { Type, type Static } from '@sinclair/typebox';
import { AnyObject, Money, StringEnum } from './common.js';

const Str = (max = 4000) => Type.String({ maxLength: max });
export const CHANNELS = ['api', 'mcp', 'a2a', 'sdk', 'sandbox'] as const;
export const Channel = StringEnum(CHANNELS);
export type Channel = Static<typeof Channel>;

export const AutonomyGrant = Type.Object(
  {
    enabled: Type.Boolean(),
    allowedActions: Type.Optional(Type.Array(Str(100), { maxItems: 50 })),
    allowCommands: Type.Optional(Type.Boolean({ default: false })),
    maxActions: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    dryRun: Type.Optional(Type.Boolean({ default: true })),
    workdir: Type.Optional(Str(1000)),
    requireApproval: Type.Optional(Type.Array(Str(100), { maxItems: 50 })),
  },
  { $id: 'AutonomyGrant', additionalProperties: true },
);

export const AUTONOMOUS_MODES = ['delivery', 'environment'] as const;
export const AutonomousRequest = Type.Object(
  { mode: Type.Optional(StringEnum(AUTONOMOUS_MODES)), autonomy: AutonomyGrant },
  { $id: 'AutonomousRequest', additionalProperties: true },
);

export const TemplateRunRequest = Type.Object(
  {
    templateId: Type.String({ minLength: 1, maxLength: 100 }),
    request: Type.Optional(Str(8000)),
    conversationId: Type.Optional(Str(200)),
    metadata: Type.Optional(AnyObject),
  },
  { $id: 'TemplateRunRequest', additionalProperties: true, description: 'Plus the template-specific fields of its input schema' },
);

/** Failure the midnight-arbitrage sandbox simulates; '' is none. */
export const CHAOS_MODES = ['', 'latency', 'modelError', 'unauthorizedSpend', 'freeze'] as const;
export const ChaosMode = StringEnum(CHAOS_MODES, { default: '' });
export type ChaosMode = Static<typeof ChaosMode>;

export const SandboxRequest = Type.Object(
  {
    chaos: ChaosMode,
  },
  { $id: 'SandboxRequest' },
);

export const BudgetUsd = Type.Object({ maxUsd: Type.Number({ minimum: 0 }) });
export { Money };
