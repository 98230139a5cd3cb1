import type { Deps } from '../../shared/deps.js';
import { getConnector } from './connectors-repository.js';
import { notFound } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { type CONNECTOR_RULES, decide, type PolicyDecision, type PolicyDomain } from '../policy/index.js';

const connectorRule = (id: (typeof CONNECTOR_RULES)[number]['id'], reason: string): PolicyDecision => ({
  allowed: false,
  rule: { id, effect: 'deny' },
  reason,
  requires: [],
});

/**
 * Bridge's side of a policy evaluation (policy itself reads no connector, so it imports no bridge file).
 * Whether `domain` may perform `action`, and the rule that decided. With a
 * connector (404 when the caller has none by that id), an allowed action is
 * also checked against the connector: it must not be disabled and must hold
 * the capability. The first rule that denies decides; if none does, the
 * domain rule that allowed.
 */
export async function evaluatePolicy(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  body: { domain: PolicyDomain; action: string; connectorId?: string },
) {
  const connector = body.connectorId ? await getConnector(deps.db, principal.accountId, body.connectorId) : null;
  if (body.connectorId && !connector) throw notFound(`Connector ${body.connectorId}`);
  let decision = decide(body.domain, body.action);
  if (decision.allowed && connector) {
    if (connector.status === 'disabled')
      decision = connectorRule('connector.status', `connector ${connector.connector_id} is disabled`);
    else if (!connector.caps.includes(body.action))
      decision = connectorRule(
        'connector.capability',
        `connector ${connector.connector_id} does not have ${body.action} (its caps: ${connector.caps.join(', ')})`,
      );
  }
  return {
    ok: true as const,
    domain: body.domain,
    action: body.action,
    connectorId: body.connectorId ?? null,
    ...decision,
  };
}
