import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Money, Ok, StringEnum, Text, Timestamp } from '../../shared/schemas/common.js';
import { REFUNDS } from './machine.js';

/** Pay's schemas for money that moves at a provider (Stripe): mandate backing, refunds, webhooks. */

export const ProviderBackingCreate = Type.Object(
  {
    connectorId: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'A connector of kind stripe (capability pay.charge): its endpoint, secret key and whsec_ secret',
    }),
    customer: Type.String({ pattern: '^cus_[A-Za-z0-9]{1,200}$', description: 'The Stripe Customer who pays' }),
    paymentMethod: Type.String({
      pattern: '^pm_[A-Za-z0-9_]{1,200}$',
      description:
        "The Customer's saved PaymentMethod (set up for off-session use with a SetupIntent); it must be attached " +
        'to that Customer (checked with Stripe, 422 otherwise)',
    }),
  },
  {
    additionalProperties: false,
    description:
      'Pay through Stripe: each settlement under the mandate is a PaymentIntent confirmed off session with this ' +
      'PaymentMethod. Omitted: the internal ledger records settlements and no money moves.',
  },
);
export type ProviderBackingCreate = Static<typeof ProviderBackingCreate>;

export const ProviderBackingView = Type.Object({
  provider: Type.Literal('stripe'),
  connectorId: Type.String(),
  customer: Type.String(),
  paymentMethod: Type.String(),
  webhookPath: Type.String({
    description: "Where the Stripe account's webhook endpoint must point (signed with the connector's whsec_ secret)",
  }),
});

/** What the provider said of a receipt's payment; null for the internal ledger. */
export const ReceiptProviderState = Nullable(
  Type.Object({
    paymentIntent: Nullable(Type.String({ description: 'Null until the PaymentIntent was created (after commit)' })),
    status: Nullable(Type.String({ description: "The PaymentIntent's status at Stripe (succeeded, processing, …)" })),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
  }),
);

export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;

export const RefundCreate = Type.Object(
  {
    receiptId: Text(200),
    amount: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1e9,
        description: "Major units in the receipt's currency; omitted: everything not refunded yet",
      }),
    ),
    reason: Type.Optional(StringEnum(REFUND_REASONS, { description: "Stripe's refund reasons" })),
  },
  { $id: 'RefundCreate', additionalProperties: false },
);
export type RefundCreate = Static<typeof RefundCreate>;

export const RefundStatus = StringEnum(REFUNDS.statuses, {
  description: 'pending until the provider answers (its webhooks say); the ledger refunds at once',
});

export const Refund = Type.Object(
  {
    refundId: Type.String(),
    receiptId: Type.String(),
    amount: Money,
    status: RefundStatus,
    reason: Nullable(StringEnum(REFUND_REASONS)),
    providerRef: Nullable(Type.String({ description: "The provider's Refund id (re_…)" })),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Refund' },
);

/** A Stripe event as its webhooks send it (the signature over the raw body is what authenticates it). */
export const StripeEventBody = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 255 }),
    type: Type.String({ minLength: 1, maxLength: 255 }),
    data: Type.Object({ object: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: true }),
  },
  { $id: 'StripeEventBody', additionalProperties: true },
);

export const WEBHOOK_RESULTS = [
  'receiptUpdated',
  'refundUpdated',
  'unchanged',
  'noReceipt',
  'noRefund',
  'ignored',
] as const;

export const ProviderWebhookReply = Ok(
  {
    eventId: Type.String(),
    duplicate: Type.Boolean({ description: 'This connector received the event before: nothing changed' }),
    result: StringEnum(WEBHOOK_RESULTS),
  },
  'ProviderWebhookReply',
);

/** What a receipt's events (`pay.settled`, `pay.failed`) say of it. */
export const receiptEventFields = {
  receiptId: Type.String(),
  mandateId: Type.String(),
  amount: Type.Number({ description: 'Major units' }),
  currency: Type.String(),
  vendorId: Type.String(),
  taskId: Type.String(),
  runId: Nullable(Type.String()),
  cite: Type.String(),
};

export const PayFailedPayload = Type.Object(
  {
    ...receiptEventFields,
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
  },
  { $id: 'PayFailedPayload' },
);

export const PayRefundedPayload = Type.Object(
  {
    refundId: Type.String(),
    receiptId: Type.String(),
    amount: Type.Number({ description: 'Major units' }),
    currency: Type.String(),
    status: RefundStatus,
    cite: Type.String({ description: 'The refunded receipt' }),
  },
  { $id: 'PayRefundedPayload' },
);
