import { defineMachine } from '../state-machine.js';

/**
 * A mandate: `active` until it is revoked or its `expiresAt` passes.
 * `expired` is never written: it is read from Postgres' clock with the row,
 * so a mandate cannot settle past its time because a sweep has not run.
 * Spending it down does not change its status (`remaining` says 0).
 */
export const MANDATES = defineMachine({
  active: ['revoked', 'expired'],
  revoked: [],
  expired: [],
});

export type MandateStatus = (typeof MANDATES.statuses)[number];

/**
 * A receipt: the internal ledger writes it `settled`; under a Stripe-backed mandate it is `pending` until Stripe says
 * the PaymentIntent succeeded (`settled`) or did not (`failed`: its amount goes back to the mandate).
 */
export const RECEIPTS = defineMachine({
  pending: ['settled', 'failed'],
  settled: [],
  failed: [],
});
export type ReceiptStatus = (typeof RECEIPTS.statuses)[number];

/** A refund, in Stripe's words (`requires_action` is kept as `pending`); Stripe may fail a refund it had succeeded. */
export const REFUNDS = defineMachine({
  pending: ['succeeded', 'failed', 'canceled'],
  succeeded: ['failed'],
  failed: [],
  canceled: [],
});
export type RefundStatus = (typeof REFUNDS.statuses)[number];
