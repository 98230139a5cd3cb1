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

const Open = { additionalProperties: true };
const SandboxPath = Type.Object(
  {
    path: Type.String(),
    vendorId: Type.String(),
    cost: Type.Number(),
    expectedProfit: Type.Number(),
    method: StringEnum(['pricingModel', 'fallbackRule'] as const),
    rejectedBecause: Type.Union([Type.String(), Type.Null()]),
  },
  Open,
);
/** The simulation's answer: what it decided, why, and the receipt when it settled (a sandbox receipt: nothing paid). */
export const SandboxResult = Type.Object(
  {
    ok: Type.Literal(true),
    status: StringEnum(['settled', 'refused', 'frozen'] as const),
    chaos: ChaosMode,
    receipt: Type.Union([
      Type.Object(
        { receiptId: Type.String(), status: Type.Literal('settled'), amount: Money, vendorId: Type.String() },
        Open,
      ),
      Type.Null(),
    ]),
    mandate: Type.Object({ decision: StringEnum(['approved', 'refused', 'notEvaluated'] as const) }, Open),
    decisionTree: Type.Object({ selected: Type.Union([SandboxPath, Type.Null()]), paths: Type.Array(SandboxPath) }),
    trace: Type.Array(Type.Object({ step: Type.String(), status: Type.String(), note: Type.String() })),
    vendorTelemetry: Type.Array(
      Type.Object({ vendorId: Type.String(), latencyMs: Type.Number(), status: Type.String() }),
    ),
  },
  { $id: 'SandboxResult' },
);

const Timing = Type.Object({
  n: Type.Integer(),
  p50Ms: Type.Number(),
  p95Ms: Type.Number(),
  opsPerSec: Type.Number(),
});
export const LocalBenchmarkResult = Type.Object(
  {
    ok: Type.Literal(true),
    measuredAt: Type.String({ format: 'date-time' }),
    totalMs: Type.Number(),
    node: Type.String(),
    figures: Type.Record(Type.String(), Timing, {
      description: 'validation, routing, sandboxRun, postgresRoundTrip, redisRoundTrip',
    }),
  },
  { $id: 'LocalBenchmarkResult' },
);

/**
 * A budget in its own currency: `{ amount, currency }` (amount a number or a decimal string). `{ maxUsd }` is the
 * older form, read as US dollars.
 */
export const Budget = Type.Union(
  [
    Type.Object({
      amount: Type.Union([
        Type.Number({ minimum: 0, maximum: 1e12 }),
        Type.String({ pattern: '^\\d{1,12}(\\.\\d{1,4})?$' }),
      ]),
      currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code (EUR, USD, GBP, CHF, JPY, …)' }),
    }),
    Type.Object({ maxUsd: Type.Number({ minimum: 0, maximum: 1e12, description: 'Deprecated: amount in USD' }) }),
  ],
  { description: 'A budget in its own currency' },
);
export { Money };
