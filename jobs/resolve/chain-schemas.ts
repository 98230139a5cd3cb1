import { Type } from '@sinclair/typebox';
import { Id, Ok, StringEnum } from '../../shared/schemas/common.js';

/** Chain tracing (POST /v1/tools/chainTrace) and its account-managed address labels. */

export const CHAINS = ['ethereum', 'evm', 'bitcoin'] as const;
export const LABEL_KINDS = [
  'exchange',
  'mixer',
  'knownScam',
  'sanctioned',
  'bridge',
  'merchant',
  'victim',
  'other',
] as const;
export const URGENCIES = ['critical', 'high', 'medium', 'low'] as const;
export const RECOVERY_ACTIONS = ['requestFreeze', 'reportToAuthorities', 'reportSanctioned', 'monitor'] as const;
export const MAX_TRACE_DEPTH = 5;

export const ChainTraceRequest = Type.Object(
  {
    chain: StringEnum(CHAINS),
    txHash: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Transaction to start from (0x + 64 hex on EVM chains, 64 hex on bitcoin)',
      }),
    ),
    address: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Address whose outgoing transfers to start from' }),
    ),
    depth: Type.Integer({
      minimum: 1,
      maximum: MAX_TRACE_DEPTH,
      default: 2,
      description: 'How many hops to follow from the start',
    }),
    taskId: Type.Optional(Id('A task of yours this trace belongs to (404 when it is not yours)')),
  },
  { $id: 'ChainTraceRequest', additionalProperties: true },
);

const Label = Type.Object({
  labelId: Type.String(),
  kind: StringEnum(LABEL_KINDS),
  name: Type.String(),
  note: Type.Union([Type.String(), Type.Null()]),
});

export const Hop = Type.Object({
  hopId: Type.String({ description: '`h1`, `h2`, ... in the order found; the recovery assessment cites these' }),
  depth: Type.Integer({ minimum: 1 }),
  txHash: Type.String(),
  from: Type.String(),
  to: Type.String(),
  amount: Type.Object({
    raw: Type.String({ description: "Integer amount in the asset's smallest unit" }),
    value: Type.String({ description: 'raw / 10^decimals' }),
    asset: Type.String(),
    decimals: Type.Integer({ minimum: 0 }),
    contract: Type.Union([Type.String(), Type.Null()]),
  }),
  timestamp: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const ChainTraceResult = Ok(
  {
    chain: StringEnum(CHAINS),
    provider: StringEnum(['evmJsonRpc', 'esplora'] as const),
    taskId: Type.Union([Type.String(), Type.Null()]),
    depth: Type.Integer(),
    hops: Type.Array(Hop),
    reached: Type.Array(
      Type.Object({
        address: Type.String(),
        viaHops: Type.Array(Type.String()),
        label: Type.Union([Label, Type.Null()]),
      }),
    ),
    labelMatches: Type.Array(Type.Object({ address: Type.String(), label: Label, hops: Type.Array(Type.String()) })),
    recoveryAssessment: Type.Object({
      summary: Type.String(),
      urgency: StringEnum(URGENCIES),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
      actions: Type.Array(
        Type.Object({
          action: StringEnum(RECOVERY_ACTIONS),
          where: Type.String(),
          detail: Type.String(),
          citesHops: Type.Array(Type.String()),
        }),
      ),
    }),
    limits: Type.Array(Type.String({ description: 'What the trace could not follow and why' })),
  },
  'ChainTraceResult',
);

export const ChainLabelCreate = Type.Object(
  {
    chain: StringEnum(CHAINS),
    address: Type.String({ minLength: 1, maxLength: 100 }),
    kind: StringEnum(LABEL_KINDS),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    note: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { $id: 'ChainLabelCreate', additionalProperties: true },
);
export const ChainLabelView = Type.Object({
  labelId: Type.String(),
  family: StringEnum(['evm', 'bitcoin'] as const),
  address: Type.String(),
  kind: StringEnum(LABEL_KINDS),
  name: Type.String(),
  note: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});
export const ChainLabelReply = Ok({ label: ChainLabelView }, 'ChainLabelReply');
export const ChainLabelPage = Ok(
  { labels: Type.Array(ChainLabelView), nextCursor: Type.Union([Type.String(), Type.Null()]) },
  'ChainLabelPage',
);
