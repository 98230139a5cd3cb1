import { defineMachine } from '../state-machine.js';

/**
 * A delivery attempt: claimed under a lease, then settled with that lease's
 * token; a claim that is released or whose lease is swept goes back to
 * queued. `completed`, `failed` and `canceled` are terminal: a retry is a
 * new child attempt, never a finished one coming back.
 */
export const DELIVERIES = defineMachine({
  queued: ['claimed', 'canceled'],
  claimed: ['completed', 'failed', 'queued', 'canceled'],
  completed: [],
  failed: [],
  canceled: [],
});

/**
 * A subscription: clients pause and resume it (resuming re-enables a
 * disabled one); only the ledger disables it (410 Gone, or failing for 5
 * days). No status is terminal.
 */
export const SUBSCRIPTIONS = defineMachine({
  active: ['paused', 'disabled'],
  paused: ['active', 'disabled'],
  disabled: ['active', 'paused'],
});

export type DeliveryStatus = (typeof DELIVERIES.statuses)[number];
export type SubscriptionStatus = (typeof SUBSCRIPTIONS.statuses)[number];
