import type { Deps } from '../../shared/deps.js';
import { getConnector } from '../bridge/index.js';
import { invalidPayload, notFound } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import type { SecretRefStatus, SecretsCheckRequest } from './schemas.js';
import { checkSecretRef, isSecretRef, type SecretRefProblem } from '../../shared/secrets.js';
import { referenceStates } from '../credentials/index.js';

/**
 * POST /v1/security/secrets/check: whether each reference would resolve for
 * the caller, with the reference module connectors use (shared/secrets.ts):
 * `cred:` ones in the caller's own vault; `env:` ones only for operators
 * (admin scope). For anyone else an env: reference is out of bounds before
 * the environment is looked at, so the answer never says which server
 * variables are set. A reference is shown back only when it has a
 * reference's shape; anything else may be the secret itself, pasted where a
 * reference belongs, and is never echoed. No value is ever returned.
 */

const STATUS: Record<SecretRefProblem, SecretRefStatus> = {
  outsidePrefix: 'outOfBounds',
  unsupportedScheme: 'outOfBounds',
  envNotAllowed: 'outOfBounds',
  literalSecret: 'literal',
  malformed: 'malformed',
  notReference: 'malformed',
};

type CheckDeps = Pick<Deps, 'db' | 'config'>;

export async function checkReference(deps: CheckDeps, principal: Principal, name: string, value: string) {
  const operator = principal.scopes.includes('admin');
  const prefix = deps.config.SECRET_ENV_PREFIX;
  const check = checkSecretRef(value, { prefix, allowEnv: operator });
  const ref = isSecretRef(value) ? value : null;
  if (!check.ok) {
    const status = STATUS[check.problem];
    const lead = {
      outOfBounds: 'out of bounds',
      literal: 'literal',
      malformed: 'malformed',
      resolvable: '',
      missing: '',
    }[status];
    return {
      name,
      ref,
      variable: null,
      status,
      message: check.message.includes(lead) ? check.message : `${lead}: ${check.message}`,
    };
  }
  const [state] = await referenceStates(deps, { accountId: principal.accountId, allowEnv: operator, operator }, [
    value,
  ]);
  const set = Boolean(state?.set);
  const where = check.ref.scheme === 'cred' ? "in this account's vault" : 'on this server';
  const missing =
    check.ref.scheme === 'cred'
      ? `missing: ${check.ref.ref} is not available in this account; store it with POST /v1/bridge/credentials`
      : `missing: ${check.ref.ref} is not set on this server; set ${check.ref.name} in its environment`;
  return {
    name,
    ref: check.ref.ref,
    variable: check.ref.name,
    status: (set ? 'resolvable' : 'missing') as SecretRefStatus,
    message: set ? `resolvable: ${check.ref.ref} is set ${where} (its value is never shown)` : missing,
  };
}

/** The references of a stored connector, named by the field that holds them. */
async function connectorRefs(
  deps: CheckDeps,
  principal: Principal,
  connectorId: string,
): Promise<Array<{ name: string; ref: string }>> {
  const row = await getConnector(deps.db, principal.accountId, connectorId);
  if (!row) throw notFound(`Connector ${connectorId}`);
  return [
    ...(row.credential ? [{ name: 'credential.tokenRef', ref: row.credential.tokenRef }] : []),
    ...row.scopes.flatMap((s, n) => s.tokenRefs.map((ref, k) => ({ name: `scopes/${n}/tokenRefs/${k}`, ref }))),
  ];
}

export async function checkSecretRefs(deps: CheckDeps, principal: Principal, body: SecretsCheckRequest) {
  if (!body.refs && !body.connectorId)
    throw invalidPayload('send refs ([{ name, ref }]), a connectorId, or both', [
      { path: '/refs', message: 'refs or connectorId is required', keyword: 'required' },
    ]);
  const prefix = deps.config.SECRET_ENV_PREFIX;
  const refs = [
    ...(body.connectorId ? await connectorRefs(deps, principal, body.connectorId) : []),
    ...(body.refs ?? []),
  ];
  const results = [];
  for (const r of refs) results.push(await checkReference(deps, principal, r.name, r.ref));
  return {
    ok: true as const,
    allResolvable: results.every((r) => r.status === 'resolvable'),
    connectorId: body.connectorId ?? null,
    prefix,
    results,
  };
}
