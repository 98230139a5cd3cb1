import type { Deps } from '../../shared/deps.js';
import { getConnector } from '../../shared/db/connectors.js';
import { invalidPayload, notFound } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import type { SecretRefStatus, SecretsCheckRequest } from '../../shared/schemas/security.js';
import { checkSecretRef, isSecretRef, resolveSecret, type SecretRefProblem } from '../../shared/secrets.js';

/**
 * POST /v1/security/secrets/check: whether each reference would resolve on
 * this server, with the secret-reference module bridge connectors use
 * (shared/secrets.ts). A reference is shown back only when it has the
 * `env:NAME` shape; anything else may be the secret itself, pasted where a
 * reference belongs, and is never echoed. No value is ever returned.
 */

const STATUS: Record<SecretRefProblem, SecretRefStatus> = {
  outsidePrefix: 'outOfBounds',
  unsupportedScheme: 'outOfBounds',
  literalSecret: 'literal',
  malformed: 'malformed',
  notReference: 'malformed',
};

export function checkReference(name: string, value: string, prefix: string) {
  const check = checkSecretRef(value, { prefix });
  const ref = isSecretRef(value) ? value : null;
  if (!check.ok) {
    const status = STATUS[check.problem];
    const lead = { outOfBounds: 'out of bounds', literal: 'literal', malformed: 'malformed', resolvable: '', missing: '' }[status];
    return { name, ref, variable: null, status, message: check.message.includes(lead) ? check.message : `${lead}: ${check.message}` };
  }
  const set = resolveSecret(value, { prefix }).set;
  return {
    name, ref: check.ref.ref, variable: check.ref.name,
    status: (set ? 'resolvable' : 'missing') as SecretRefStatus,
    message: set ? `resolvable: ${check.ref.ref} is set on this server (its value is never shown)` : `missing: ${check.ref.ref} is not set on this server; set ${check.ref.name} in its environment`,
  };
}

/** The references of a stored connector, named by the field that holds them. */
async function connectorRefs(deps: Deps, principal: Principal, connectorId: string): Promise<Array<{ name: string; ref: string }>> {
  const row = await getConnector(deps.db, principal.accountId, connectorId);
  if (!row) throw notFound(`Connector ${connectorId}`);
  return [
    ...(row.credential ? [{ name: 'credential.tokenRef', ref: row.credential.tokenRef }] : []),
    ...row.scopes.flatMap((s, n) => s.tokenRefs.map((ref, k) => ({ name: `scopes/${n}/tokenRefs/${k}`, ref }))),
  ];
}

export async function checkSecretRefs(deps: Deps, principal: Principal, body: SecretsCheckRequest) {
  if (!body.refs && !body.connectorId) throw invalidPayload('send refs ([{ name, ref }]), a connectorId, or both', [{ path: '/refs', message: 'refs or connectorId is required', keyword: 'required' }]);
  const prefix = deps.config.SECRET_ENV_PREFIX;
  const refs = [...(body.connectorId ? await connectorRefs(deps, principal, body.connectorId) : []), ...(body.refs ?? [])];
  const results = refs.map((r) => checkReference(r.name, r.ref, prefix));
  return { ok: true as const, allResolvable: results.every((r) => r.status === 'resolvable'), connectorId: body.connectorId ?? null, prefix, results };
}
