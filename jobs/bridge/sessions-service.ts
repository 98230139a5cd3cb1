import type { Deps } from '../../shared/deps.js';
import { getSession, insertSession, listSessions, revokeSession, type SessionRow } from './sessions-repository.js';
import { getConnector, type ConnectorRow } from './connectors-repository.js';
import type { Db } from '../../shared/db/knex.js';
import { conflict, invalidPayload, notFound, policyViolation } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { decide } from '../policy/index.js';
import { resourcePatternProblem, scopesCovering } from './logic.js';
import { SESSIONS } from './machines.js';
import type { SessionCreate } from './schemas.js';
import { sessionStatus } from './views.js';

const DEFAULT_LIFETIME_MS = 60 * 60 * 1000;

/**
 * Why each (action, resource) of a session request is outside what the connector allows: not a cap, denied by policy,
 * or no scope covers it.
 */
function outOfBounds(connector: ConnectorRow, actions: string[], resources: string[] | null) {
  const problems: Array<{
    check: 'capability' | 'policy' | 'scope';
    action: string;
    resource?: string;
    message: string;
  }> = [];
  for (const action of actions) {
    if (!connector.caps.includes(action)) {
      problems.push({
        check: 'capability',
        action,
        message: `${action} is not one of connector ${connector.connector_id}'s caps`,
      });
      continue;
    }
    const decision = decide('bridge', action);
    if (!decision.allowed)
      problems.push({
        check: 'policy',
        action,
        message: `${action} is denied by ${decision.rule.id}: ${decision.reason}`,
      });
    for (const resource of resources ?? [undefined]) {
      if (scopesCovering(connector.scopes, action, resource).length === 0) {
        problems.push({
          check: 'scope',
          action,
          ...(resource ? { resource } : {}),
          message:
            `no scope of connector ${connector.connector_id} covers ` + `${action}${resource ? ` on ${resource}` : ''}`,
        });
      }
    }
  }
  return problems;
}

function expiryOf(deps: Deps, expiresAt: string | undefined): Date {
  const now = Date.now();
  const at = expiresAt ? new Date(expiresAt) : new Date(now + DEFAULT_LIFETIME_MS);
  if (at.getTime() <= now) throw invalidPayload('expiresAt must be in the future');
  const maxHours = deps.config.CONNECTION_SESSION_MAX_HOURS;
  if (at.getTime() > now + maxHours * 3_600_000)
    throw invalidPayload(`expiresAt may be at most ${maxHours} hours ahead (CONNECTION_SESSION_MAX_HOURS)`);
  return at;
}

/**
 * A session scoped to one connector: its actions and resources must lie
 * within the connector's caps, the bridge policy and the connector's scopes
 * (422 naming each that does not), and it expires.
 */
export async function createSession(deps: Deps, principal: Principal, body: SessionCreate): Promise<SessionRow> {
  const connector = await getConnector(deps.db, principal.accountId, body.connectorId);
  if (!connector) throw notFound(`Connector ${body.connectorId}`);
  const resources = body.resources ? [...new Set(body.resources)] : null;
  const bad = (resources ?? []).map((r, i) => ({ i, problem: resourcePatternProblem(r) })).find((x) => x.problem);
  if (bad) throw invalidPayload(`/resources/${bad.i}: resource pattern ${bad.problem}`);
  const expiresAt = expiryOf(deps, body.expiresAt);
  if (connector.status === 'disabled')
    throw conflict(`Connector ${connector.connector_id} is disabled; enable it before opening sessions`, {
      connectorId: connector.connector_id,
      status: connector.status,
    });
  const problems = outOfBounds(connector, body.actions, resources);
  if (problems.length > 0)
    throw policyViolation(
      `${problems[0]!.message}${problems.length > 1 ? ` (and ${problems.length - 1} more, see details)` : ''}`,
      { problems },
    );
  return insertSession(deps.db, {
    id: newId('csn'),
    account_id: principal.accountId,
    connector_pk: connector.id,
    connector_id: connector.connector_id,
    actions: body.actions,
    resources,
    expires_at: expiresAt,
  });
}

export async function findSessions(
  deps: Deps,
  principal: Principal,
  query: { connectorId?: string; status?: string; limit?: number; cursor?: string },
) {
  return listSessions(deps.db, principal.accountId, query, query.limit ?? 50, query.cursor);
}

export async function fetchSession(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  sessionId: string,
): Promise<SessionRow> {
  const row = await getSession(deps.db, principal.accountId, sessionId);
  if (!row) throw notFound(`Connection session ${sessionId}`);
  return row;
}

/** Revokes a live session under its lock; a revoked or expired one is 409 (the machine has no move from there). */
export async function revokeSessionByClient(
  deps: Deps,
  principal: Principal,
  sessionId: string,
  reason?: string,
): Promise<SessionRow> {
  return deps.db.transaction(async (trx) => {
    const row = await getSession(trx, principal.accountId, sessionId, true);
    if (!row) throw notFound(`Connection session ${sessionId}`);
    const status = sessionStatus(row);
    if (!SESSIONS.canMove(status, 'revoked'))
      throw conflict(`Connection session ${sessionId} is already ${status}`, {
        from: status,
        to: 'revoked',
        allowed: SESSIONS.allowed(status),
      });
    return revokeSession(trx, row.id, reason ?? null);
  });
}

/**
 * A session being used for `connector`: it must exist in the account (404),
 * belong to that connector (400) and be live. A revoked or expired session
 * is refused with 409 conflict (its state forbids the use; the caller should
 * open a new one), `details.status` saying which. Bridge actions call this too.
 */
export async function requireLiveSession(
  db: Db,
  accountId: string,
  sessionId: string,
  connector: ConnectorRow,
): Promise<SessionRow> {
  const row = await getSession(db, accountId, sessionId);
  if (!row) throw notFound(`Connection session ${sessionId}`);
  if (row.connector_pk !== connector.id)
    throw invalidPayload(
      `Connection session ${sessionId} is for connector ${row.connector_id}, not ${connector.connector_id}`,
    );
  const status = sessionStatus(row);
  if (status !== 'active') {
    const when = status === 'revoked' ? row.revoked_at : row.expires_at;
    throw conflict(
      `Connection session ${sessionId} was ${status}${when ? ` at ${new Date(when).toISOString()}` : ''}; ` +
        `open a new session`,
      { sessionId, status },
    );
  }
  return row;
}
