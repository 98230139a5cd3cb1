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
