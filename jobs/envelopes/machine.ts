import { defineMachine } from '../state-machine.js';

/**
 * Delivery of an A2A envelope, as the parties report it: `queued` when
 * created, `sent` once handed to the recipient's transport, `delivered` when
 * the recipient confirmed receipt, then `accepted` (it took the work) or
 * `rejected`, and `completed` with its result. `failed` and `canceled` are
 * reachable until the end. The four with no moves are final.
 */
export const ENVELOPES = defineMachine({
  queued: ['sent', 'failed', 'canceled'],
  sent: ['delivered', 'failed', 'canceled'],
  delivered: ['accepted', 'rejected', 'failed', 'canceled'],
  accepted: ['completed', 'failed', 'canceled'],
  rejected: [],
  completed: [],
  failed: [],
  canceled: [],
});

export type EnvelopeStatus = (typeof ENVELOPES.statuses)[number];

/** What an envelope carries: a hand-off of work, a message between the parties, or the result of a hand-off. */
export const ENVELOPE_KINDS = ['delegation', 'message', 'result'] as const;
