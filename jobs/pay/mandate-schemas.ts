import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Money, Ok, StringEnum, Text, Timestamp } from '../../shared/schemas/common.js';
import { RECEIPTS } from './machine.js';
import { ProviderBackingCreate, ReceiptProviderState, receiptEventFields, Refund } from './provider-schemas.js';

/**
 * Pay: mandates, settlement and receipts. Amounts are numbers in the API
 * (major units, as the spec says) and integer minor units in storage. The
 * mandate body has no defaults on purpose: ajv fills defaults into bodies,
 * and an issuer's signature covers the body exactly as it was sent.
 */

export const RESOLVE_RULES = ['inventoryVerified', 'hiddenFeeClear'] as const;
export const ResolveRule = StringEnum(RESOLVE_RULES, {
  description:
    'inventoryVerified: availability of the chosen candidate was confirmed; hiddenFeeClear: no fee of the ' +
    'chosen candidate is unpriced or flagged as hidden',
});
export type ResolveRule = Static<typeof ResolveRule>;

/** Why a settlement is refused (422 policyViolation, `details.reason`): each names the mandate rule that refused it. */
export const REFUSAL_REASONS = [
  'policyDenied',
  'unknownMandate',
  'mandateRevoked',
  'mandateExpired',
  'taskMismatch',
  'currencyMismatch',
  'vendorNotAllowed',
  'overBudget',
  'resolveRuleUnmet',
] as const;
export const RefusalReason = StringEnum(REFUSAL_REASONS, {
  description: 'The mandate rule that refused the settlement',
});
export type RefusalReason = Static<typeof RefusalReason>;

const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' });
/** At most 1e9 in major units, so minor units stay exact in a JS number. */
const Amount = Type.Number({ exclusiveMinimum: 0, maximum: 1e9 });

export const MandateCreate = Type.Object(
  {
    taskId: Text(200),
    constraints: Type.Object(
      {
        maxSpend: Type.Object(
          { amount: Amount, currency: CurrencyCode },
          { description: 'The most the mandate ever settles, in total' },
        ),
        allowedVendors: Type.Optional(
          Type.Array(Text(200), {
            minItems: 1,
            maxItems: 200,
            description: 'Vendors it may pay (compared case-insensitively); omitted: any vendor',
          }),
        ),
        resolveRules: Type.Optional(
          Type.Array(ResolveRule, {
            maxItems: 2,
            uniqueItems: true,
            description: 'Evidence the task must hold before anything is settled',
          }),
        ),
      },
      { additionalProperties: true },
    ),
    issuer: Type.Optional(
      Type.Object(
        {
          entityId: Text(200),
          publicKey: Type.Optional(Text(2000)),
          signature: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 200,
              description:
                'Ed25519 signature (base64url or base64) over the RFC 8785 canonical JSON of this body ' +
                'without issuer.signature; needs publicKey',
            }),
          ),
        },
        {
          additionalProperties: true,
          description:
            'Who grants the mandate; publicKey is an Ed25519 key (raw 32 bytes in base64url/base64, or SPKI PEM)',
        },
      ),
    ),
    expiresAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'After this the mandate settles nothing (status expired)' }),
    ),
    provider: Type.Optional(ProviderBackingCreate),
  },
  { $id: 'MandateCreate', additionalProperties: true },
);
export type MandateCreate = Static<typeof MandateCreate>;

export const MandateRevoke = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500 })) },
  { $id: 'MandateRevoke' },
);

export const SettleRequest = Type.Object(
  {
    mandateId: Text(200),
    taskId: Text(200),
    vendorId: Text(200),
    amount: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1e9,
      description: "Major units (USD unless currency says otherwise), at most the currency's minor-unit precision",
    }),
    currency: Type.Optional(CurrencyCode),
    povRef: Type.Optional(Text(500)),
  },
  { $id: 'SettleRequest', additionalProperties: true },
);
export type SettleRequest = Static<typeof SettleRequest>;

/** The fields every receipt view shares. */
const receiptFields = {
  receiptId: Type.String(),
  status: StringEnum(RECEIPTS.statuses, {
    description:
      'settled: the money moved (the ledger settles at once); pending: a Stripe payment under way, its outcome ' +
      "from Stripe's webhooks; failed: Stripe did not take the payment (its amount is back on the mandate)",
  }),
  vendorId: Type.String(),
  povRef: Nullable(Type.String({ description: 'Proof-of-value reference: what the money bought' })),
  cite: Type.String({ description: 'awp:receipt:<receiptId>#v1' }),
  mandateId: Type.String(),
  taskId: Type.String(),
  runId: Nullable(Type.String({ description: 'The run whose pay step settled it; null for POST /v1/pay/settle' })),
  provider: Type.String({ description: 'The payment provider that moves the money (internalLedger, stripe)' }),
  providerState: ReceiptProviderState,
  settledAt: Timestamp,
};

export const Receipt = Type.Object({ ...receiptFields, amount: Money }, { $id: 'Receipt' });
export type Receipt = Static<typeof Receipt>;

/** The settle response's receipt: `amount` is a plain number, as the spec shows it, with `currency` beside it. */
export const SettledReceipt = Type.Object(
  { ...receiptFields, amount: Type.Number(), currency: Type.String() },
  { $id: 'SettledReceipt' },
);

export const ReceiptReply = Ok(
  {
    receipt: Type.Object({
      ...receiptFields,
      amount: Money,
      refunded: Type.Object(
        { amount: Type.Number({ minimum: 0 }), currency: Type.String() },
        { description: 'Refunds asked for and not failed' },
      ),
      refunds: Type.Array(Refund),
    }),
  },
  'ReceiptReply',
);
export const RefundReply = Ok({ refund: Refund, receipt: Receipt }, 'RefundReply');
export const SettleReply = Ok({ receipt: SettledReceipt, remaining: Money }, 'SettleReply');

export const PaySettledPayload = Type.Object(receiptEventFields, { $id: 'PaySettledPayload' });

/** `metadata.payment` of a run that pays without a hunt selection ("pay the plumber"). */
export const PaymentMetadata = Type.Object(
  {
    vendorId: Text(200),
    amount: Type.Number({ exclusiveMinimum: 0, maximum: 1e9 }),
    currency: Type.Optional(CurrencyCode),
    povRef: Type.Optional(Text(500)),
    title: Type.Optional(Text(300)),
  },
  { $id: 'PaymentMetadata', additionalProperties: true },
);
export type PaymentMetadata = Static<typeof PaymentMetadata>;
