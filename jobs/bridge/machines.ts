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
 * `retrying` between attempts of a transient failure. A call through a
 * provider adapter (jobs/bridge/providers/) the provider accepted without
 * an outcome yet (an SMS queued, a payment processing) waits in
 * `awaitingProvider` for the provider's callback (channels reconciles it
 * by `providerRef`) until its deadline (BRIDGE_PROVIDER_TIMEOUT_MS), then
 * is `timedOut`. A client-hosted one waits in `awaitingClient` until the
 * client reports through `update`, or `timedOut`. A provider's delivery
 * callback moves a `succeeded` action to `delivered` (or `failed`). `run`
 * puts a failed or timed-out action back in the queue, with the same
 * idempotency key (so a provider asked again answers with what it did).
 */
export const ACTIONS = defineMachine({
  queued: ['running', 'awaitingClient', 'failed'],
  running: ['succeeded', 'awaitingProvider', 'retrying', 'failed'],
  retrying: ['running', 'failed'],
  awaitingClient: ['succeeded', 'delivered', 'failed', 'timedOut'],
  awaitingProvider: ['succeeded', 'delivered', 'failed', 'timedOut'],
  succeeded: ['delivered', 'failed'],
  delivered: [],
  failed: ['queued'],
  timedOut: ['queued'],
});

/** Statuses of an action that is under way: a job (an attempt, a retry, a deadline) is due for each. */
export const UNDER_WAY_STATUSES = ['queued', 'running', 'retrying', 'awaitingClient', 'awaitingProvider'] as const;

/**
 * Statuses in which a run waiting on the action has its answer: it ended, or its provider took it and only the
 * provider's callback is to come (the action goes on from there; the run reports it accepted).
 */
export const RUN_SETTLED_STATUSES = ['succeeded', 'awaitingProvider', 'delivered', 'failed', 'timedOut'] as const;

export type ActionStatus = (typeof ACTIONS.statuses)[number];
