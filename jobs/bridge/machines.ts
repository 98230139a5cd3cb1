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
