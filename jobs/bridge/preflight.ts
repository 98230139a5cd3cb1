import type { Deps } from '../../shared/deps.js';
import { getConnector, updateConnector, type ConnectorRow } from './connectors-repository.js';
import { invalidPayload, notFound } from '../../shared/errors.js';
import { egressFailureReason, egressFetch } from '../../shared/http/egress.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { decide, type PreflightCheck, type PreflightStatus } from '../policy/index.js';
import {
  preflightStatus,
  refsFor,
  resourcePatternProblem,
  scopesCovering,
  sessionCovers,
  unsetMessage,
} from './logic.js';
import { CONNECTORS } from './machines.js';
import { requireLiveSession } from './sessions-service.js';
import { connectorShape, isClientHosted, refContext, secretStates } from './views.js';

interface PreflightError {
  check: PreflightCheck;
  message: string;
  [field: string]: string;
}

export interface PreflightRequest {
  action: string;
  resource?: string;
  checkEndpoint?: boolean;
  sessionId?: string;
}

/**
 * Calls the endpoint once, without any credential: any HTTP answer means it
 * is reachable. A client-hosted adapter is the client's to run, so there is
 * nothing for the server to call.
 */
async function probeEndpoint(
  deps: Deps,
  endpoint: string,
  signal: AbortSignal,
): Promise<{ passed: boolean; detail: string }> {
  if (isClientHosted(endpoint))
    return { passed: true, detail: 'client-hosted adapter: the client runs it, the server does not call it' };
  try {
    const res = await egressFetch(deps.config.AWP_ALLOW_PRIVATE_EGRESS, endpoint, {
      method: 'GET',
      timeoutMs: deps.config.CONNECTOR_PREFLIGHT_TIMEOUT_MS,
      maxBytes: 1024,
      signal,
    });
    return { passed: true, detail: `answered HTTP ${res.status}` };
  } catch (err) {
    if (signal.aborted) throw err;
    return { passed: false, detail: egressFailureReason(err) };
  }
}

/**
 * Runs every check of PREFLIGHT_RULES that applies and reports each failure
 * by name: the connector's status, the action among its caps, the bridge
 * policy, a covering scope, the session (when one is named), each reference
 * resolvable for the caller (cred: in its vault; env: told to operators
 * only; named, never shown) and, when asked, the endpoint.
 */
export async function runChecks(
  deps: Deps,
  principal: Principal,
  row: ConnectorRow,
  req: PreflightRequest,
  signal: AbortSignal,
) {
  const { action } = req;
  const resource = req.resource ?? null;
  const shape = connectorShape(row);
  const checks: Array<{ check: PreflightCheck; passed: boolean; detail?: string }> = [];
  const errors: PreflightError[] = [];
  const record = (
    check: PreflightCheck,
    failure: { message: string; [field: string]: string } | null,
    detail?: string,
  ) => {
    checks.push({ check, passed: !failure, ...(detail ? { detail } : {}) });
    if (failure) errors.push({ check, ...failure });
  };

  record(
    'status',
    row.status === 'disabled' ? { message: `connector ${row.connector_id} is disabled` } : null,
    `status ${row.status}`,
  );
  record(
    'capability',
    row.caps.includes(action)
      ? null
      : {
          message: `connector ${row.connector_id} does not have ${action} (its caps: ${row.caps.join(', ')})`,
          capability: action,
        },
  );
  const decision = decide('bridge', action);
  record(
    'policy',
    decision.allowed
      ? null
      : { message: `${action} is denied: ${decision.reason}`, capability: action, rule: decision.rule.id },
    decision.rule.id,
  );
  const covering = scopesCovering(shape.scopes, action, resource);
  const where = resource ? ` on ${resource}` : '';
  record(
    'scope',
    covering.length > 0
      ? null
      : {
          message: `no scope of connector ${row.connector_id} covers ${action}${where}`,
          capability: action,
          ...(resource ? { resource } : {}),
        },
  );
  if (req.sessionId) {
    const session = await requireLiveSession(deps.db, principal.accountId, req.sessionId, row);
    record(
      'session',
      sessionCovers(session, action, resource)
        ? null
        : {
            message: `session ${session.id} does not allow ${action}${where}`,
            capability: action,
            ...(resource ? { resource } : {}),
          },
    );
  }
  const secrets = await secretStates(deps, refContext(principal, row), refsFor(shape, covering));
  for (const s of secrets.filter((x) => !x.set))
    errors.push({ check: 'secret', message: s.refused ?? unsetMessage(s.ref), ref: s.ref, variable: s.variable });
  checks.push({
    check: 'secret',
    passed: secrets.every((s) => s.set),
    detail: `${secrets.length} reference(s) checked`,
  });
  if (req.checkEndpoint) {
    const probe = await probeEndpoint(deps, row.endpoint, signal);
    record('endpoint', probe.passed ? null : { message: probe.detail }, probe.detail);
  }
  return { checks, errors, status: preflightStatus(errors.map((e) => e.check)) };
}

/**
 * What the connector's status becomes after a preflight: an active one
 * whose references are not all set needs attention; one that needed
 * attention is active again once a preflight passes. `disabled` is left alone.
 */
function statusAfter(
  row: ConnectorRow,
  status: PreflightStatus,
  errors: PreflightError[],
): { status: string; reason: string | null } | null {
  const missing = errors.filter((e) => e.check === 'secret');
  if (row.status === 'active' && missing.length > 0)
    return { status: 'needsAttention', reason: `preflight: ${missing.map((e) => e.ref).join(', ')} not resolvable` };
  if (row.status === 'needsAttention' && status === 'ready') return { status: 'active', reason: null };
  return null;
}

export async function preflightConnector(
  deps: Deps,
  principal: Principal,
  connectorId: string,
  req: PreflightRequest,
  signal: AbortSignal,
) {
  if (req.resource) {
    const problem = resourcePatternProblem(req.resource);
    if (problem) throw invalidPayload(`/resource: resource ${problem}`);
  }
  const row = await getConnector(deps.db, principal.accountId, connectorId);
  if (!row) throw notFound(`Connector ${connectorId}`);
  const { checks, errors, status } = await runChecks(deps, principal, row, req, signal);
  const at = new Date().toISOString();
  await deps.db.transaction(async (trx) => {
    const locked = await getConnector(trx, principal.accountId, connectorId, true);
    // Deleted meanwhile: nothing to record. A platform connector is the operator's: a tenant's preflight leaves it
    // alone.
    if (!locked || locked.account_id !== principal.accountId) return;
    const move = statusAfter(locked, status, errors);
    const change =
      move && CONNECTORS.canMove(locked.status, move.status) ? { status: move.status, statusReason: move.reason } : {};
    await updateConnector(trx, locked.id, {
      ...change,
      lastPreflight: { at, action: req.action, resource: req.resource ?? null, status },
    });
  });
  return {
    ok: status === 'ready',
    status,
    connectorId: row.connector_id,
    action: req.action,
    resource: req.resource ?? null,
    errors,
    checks,
    checkedAt: at,
  };
}
