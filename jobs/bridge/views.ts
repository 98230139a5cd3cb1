import type { SessionRow } from './sessions-repository.js';
import type { ConnectorRow } from './connectors-repository.js';
import { iso } from '../../shared/db/knex.js';
import type { Deps } from '../../shared/deps.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { referenceStates, type RefContext } from '../credentials/index.js';
import { capabilityFlags, readiness, refsFor, type ConnectorShape, type SecretState } from './logic.js';
import { CONNECTORS, type SessionStatus } from './machines.js';

/** Operators hold the admin scope; only they may register platform connectors and learn env: state. */
export const isOperator = (principal: Pick<Principal, 'scopes'>) => principal.scopes.includes('admin');

/** Where a connector's references resolve: the caller's account; env: only on a platform connector. */
export function refContext(
  principal: Pick<Principal, 'accountId' | 'scopes'>,
  row: Pick<ConnectorRow, 'platform'> | null,
): RefContext {
  return { accountId: principal.accountId, allowEnv: Boolean(row?.platform), operator: isOperator(principal) };
}

/**
 * Whether each reference would resolve for this caller, never its value:
 * `cred:` in the caller's vault, `env:` (platform connectors) told to
 * operators only. A stored reference no longer admitted reads as not set, with the reason.
 */
export async function secretStates(
  deps: Pick<Deps, 'db' | 'config'>,
  ctx: RefContext,
  refs: string[],
): Promise<SecretState[]> {
  return referenceStates(deps, ctx, refs);
}

export function connectorShape(row: ConnectorRow): ConnectorShape {
  return {
    connectorId: row.connector_id,
    caps: row.caps,
    credential: row.credential,
    scopes: row.scopes,
    status: row.status,
  };
}

export const isClientHosted = (endpoint: string) => endpoint.startsWith('bridge://');

/** A connector as the API shows it to `principal`: references, never values; readiness worked out now. */
export async function connectorView(deps: Pick<Deps, 'db' | 'config'>, principal: Principal, row: ConnectorRow) {
  const shape = connectorShape(row);
  const states = await secretStates(deps, refContext(principal, row), refsFor(shape));
  return connectorViewWith(row, states);
}

export function connectorViewWith(row: ConnectorRow, states: SecretState[]) {
  const shape = connectorShape(row);
  const { preflightReady, notReady } = readiness(shape, states);
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
    platform: row.platform,
    signed: Boolean(row.signing_secret),
    callbackSigning: row.callback_signing,
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
