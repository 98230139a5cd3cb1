import { Type } from '@sinclair/typebox';
import { Money } from './common.js';

// The proxy domain's schemas are in ./proxy.ts.

const Str = (max = 2000) => Type.String({ minLength: 1, maxLength: max });

export const MandateCreate = Type.Object(
  {
    taskId: Str(200),
    constraints: Type.Object(
      {
        maxSpend: Money,
        allowedVendors: Type.Optional(Type.Array(Str(200), { maxItems: 200 })),
        resolveRules: Type.Optional(Type.Array(Str(100), { maxItems: 50, description: 'e.g. inventoryVerified, hiddenFeeClear' })),
      },
      { additionalProperties: true },
    ),
    issuer: Type.Optional(Type.Object({ entityId: Type.Optional(Str(200)), publicKey: Type.Optional(Str(2000)) }, { additionalProperties: true })),
  },
  { $id: 'MandateCreate', additionalProperties: true },
);

export const SettleRequest = Type.Object(
  { mandateId: Str(200), taskId: Str(200), vendorId: Str(200), amount: Type.Number({ exclusiveMinimum: 0, description: 'USD' }), povRef: Type.Optional(Str(500)) },
  { $id: 'SettleRequest', additionalProperties: true },
);

export const Receipt = Type.Object(
  {
    receiptId: Type.String(),
    status: Type.Literal('settled'),
    amount: Money,
    vendorId: Type.String(),
    povRef: Type.Union([Type.String(), Type.Null()]),
    cite: Type.String({ description: 'awp:receipt:<receiptId>#v1' }),
  },
  { $id: 'Receipt' },
);
