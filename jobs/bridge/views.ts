import type { SessionRow } from '../../shared/db/connection-sessions.js';
import type { ConnectorRow } from '../../shared/db/connectors.js';
import { iso } from '../../shared/db/knex.js';
import { checkSecretRef, resolveSecret } from '../../shared/secrets.js';
import { capabilityFlags, readiness, refsFor, type ConnectorShape, type SecretState } from './logic.js';
import { CONNECTORS, type SessionStatus } from './machines.js';

/**
 * Whether each reference is set on this server, naming its variable and
 * never its value. A stored reference the prefix no longer admits (the
 * operator changed SECRET_ENV_PREFIX) reads as not set, with the reason.
 */
export function secretStates(refs: string[], prefix: string): SecretState[] {
  return refs.map((ref) => {
    const check = checkSecretRef(ref, { prefix });
    if (!check.ok) return { ref, variable: ref.replace(/^env:/, ''), set: false, refused: check.message };
    return { ref, variable: check.ref.name, set: resolveSecret(ref, { prefix }).set };
  });
}

export function connectorShape(row: ConnectorRow): ConnectorShape {
  return { connectorId: row.connector_id, caps: row.caps, credential: row.credential, scopes: row.scopes, status: row.status };
}

export const isClientHosted = (endpoint: string) => endpoint.startsWith('bridge://');

/** A connector as the API shows it: references, never values; readiness worked out now, against this server's environment. */
export function connectorView(row: ConnectorRow, secretPrefix: string) {
  const shape = connectorShape(row);
  const { preflightReady, notReady } = readiness(shape, secretStates(refsFor(shape), secretPrefix));
  return {
    connectorId: row.connector_id,
    kind: row.kind,
    caps: row.caps,
    capabilityFlags: capabilityFlags(row.caps),
    endpoint: row.endpoint,
    endpointKind: isClientHosted(row.endpoint) ? 'clientHosted' : 'https',
    credential: row.credential ? { type: row.credential.type, tokenRef: row.credential.tokenRef } : null,
    scopes: row.scopes,
    status: row.status,
    statusReason: row.status_reason,
    allowedTransitions: CONNECTORS.allowed(row.status),
    preflightReady,
    notReady,
    lastPreflight: row.last_preflight,
    templateId: row.template_id,
    signed: Boolean(row.signing_secret),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** `active` until revoked or past `expiresAt` (by Postgres' clock, read with the row). */
export function sessionStatus(row: SessionRow): SessionStatus {
  if (row.status === 'revoked') return 'revoked';
  return row.expired ? 'expired' : 'active';
}

export function sessionView(row: SessionRow) {
  return {
    sessionId: row.id,
    connectorId: row.connector_id,
    actions: row.actions,
    resources: row.resources,
    status: sessionStatus(row),
    expiresAt: iso(row.expires_at),
    revokedAt: iso(row.revoked_at),
    revokedReason: row.revoked_reason,
    createdAt: iso(row.created_at),
  };
}
