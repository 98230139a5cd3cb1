import { Type } from '@sinclair/typebox';
import { Nullable, Money, Ok, PageQuery, StringEnum, Timestamp } from '../../shared/schemas/common.js';
import { Receipt, RESOLVE_RULES } from './mandate-schemas.js';
import { MANDATES } from './machine.js';
import { ProviderBackingView } from './provider-schemas.js';

/**
 * The mandate schemas whose vocabulary is the mandate machine, beside it;
 * the rest of pay's schemas are in shared/schemas/pay.ts.
 */

export const MandateStatus = StringEnum(MANDATES.statuses, {
  description: 'active until revoked, or until expiresAt passes (expired, read from the clock)',
});

const mandateFields = {
  mandateId: Type.String(),
  taskId: Type.String(),
  status: MandateStatus,
  allowedTransitions: Type.Array(MandateStatus),
  constraints: Type.Object(
    {
      maxSpend: Money,
      allowedVendors: Nullable(Type.Array(Type.String(), { description: 'null: any vendor' })),
      resolveRules: Type.Array(StringEnum(RESOLVE_RULES)),
    },
    { additionalProperties: true, description: 'As granted (fields the client added are kept)' },
  ),
  remaining: Money,
  spent: Money,
  issuer: Nullable(
    Type.Object({
      entityId: Type.String(),
      publicKey: Nullable(Type.String()),
      signed: Type.Boolean({ description: 'The issuer signed the mandate and the signature verified' }),
    }),
  ),
  providerBacking: Nullable(ProviderBackingView),
  expiresAt: Nullable(Timestamp),
  revokedAt: Nullable(Timestamp),
  revokedReason: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const MandateView = Type.Object(mandateFields, { $id: 'Mandate' });
/**
 * Create, fetch and revoke answer the mandate's fields at the top level (`mandateId`, `constraints`, `remaining`,
 * `status`, ...).
 */
export const MandateReply = Ok(mandateFields, 'MandateReply');
export const MandateDetailReply = Ok(
  {
    ...mandateFields,
    settlementCount: Type.Integer({ minimum: 0 }),
    settlements: Type.Array(Receipt, { description: 'Its receipts, newest first (at most 200)' }),
  },
  'MandateDetailReply',
);
export const MandatePage = Type.Object(
  { ok: Type.Literal(true), mandates: Type.Array(MandateView), nextCursor: Nullable(Type.String()) },
  { $id: 'MandatePage' },
);

export const MandateListQuery = Type.Composite(
  [
    PageQuery,
    Type.Object({
      taskId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      status: Type.Optional(MandateStatus),
    }),
  ],
  { $id: 'MandateListQuery' },
);
