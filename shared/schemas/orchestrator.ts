import { Type, type Static } from '@sinclair/typebox';
import { AnyObject, Money, StringEnum } from './common.js';

const Str = (max = 4000) => Type.String({ maxLength: max });
export const CHANNELS = ['api', 'mcp', 'a2a', 'sdk', 'sandbox'] as const;
export const Channel = StringEnum(CHANNELS);
export type Channel = Static<typeof Channel>;

export const AUTONOMOUS_MODES = ['delivery', 'environment'] as const;
export const AutonomousRequest = Type.Object(
  {
    mode: Type.Optional(StringEnum(AUTONOMOUS_MODES)),
    grantId: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'An autonomy grant an approver made (POST /v1/delivery/autonomy/grants)',
    }),
  },
  { $id: 'AutonomousRequest', additionalProperties: true },
);

export const TemplateRunRequest = Type.Object(
  {
    templateId: Type.String({ minLength: 1, maxLength: 100 }),
    request: Type.Optional(Str(8000)),
    conversationId: Type.Optional(Str(200)),
    metadata: Type.Optional(AnyObject),
  },
  {
    $id: 'TemplateRunRequest',
    additionalProperties: true,
    description: 'Plus the template-specific fields of its input schema',
  },
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
