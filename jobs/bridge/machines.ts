import { defineMachine } from '../state-machine.js';

/**
 * A connector: `active` is usable; `needsAttention` means its last preflight
 * found a reference unset (or the client flagged it), and a preflight that
 * passes brings it back; `disabled` is the client's off switch, which only
 * the client turns back on. No status is terminal.
 */
export const CONNECTORS = defineMachine({
  active: ['needsAttention', 'disabled'],
  needsAttention: ['active', 'disabled'],
  disabled: ['active'],
});

/**
 * A connection session: `active` until it is revoked or its `expiresAt`
 * passes. `expired` is never written: it is read from the clock (Postgres'),
 * so a session cannot outlive its time because a sweep has not run.
 */
export const SESSIONS = defineMachine({
  active: ['revoked', 'expired'],
  revoked: [],
  expired: [],
});

export type ConnectorStatus = (typeof CONNECTORS.statuses)[number];
export type SessionStatus = (typeof SESSIONS.statuses)[number];

/**
 * A bridge action. A hosted one goes `queued → running` and ends
 * `succeeded` (the provider took it) or `failed`, passing through
 * `retrying` between attempts of a transient failure. A client-hosted one
 * waits in `awaitingClient` until the client reports through `update`, or
 * `timedOut`. A provider's delivery callback moves a `succeeded` action to
 * `delivered` (or `failed`). `run` puts a failed or timed-out action back in
 * the queue, with the same idempotency key.
 */
export const ACTIONS = defineMachine({
  queued: ['running', 'awaitingClient', 'failed'],
  running: ['succeeded', 'retrying', 'failed'],
  retrying: ['running', 'failed'],
  awaitingClient: ['succeeded', 'delivered', 'failed', 'timedOut'],
  succeeded: ['delivered', 'failed'],
  delivered: [],
  failed: ['queued'],
  timedOut: ['queued'],
});

export type ActionStatus = (typeof ACTIONS.statuses)[number];
