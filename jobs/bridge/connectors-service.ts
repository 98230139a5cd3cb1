import type { Deps } from '../../shared/deps.js';
import {
  connectorsWithCapability,
  deleteConnector,
  getConnector,
  insertConnector,
  listConnectors,
  updateConnector,
  type ConnectorRow,
} from './connectors-repository.js';
import { conflict, forbidden, invalidPayload, notFound } from '../../shared/errors.js';
import { checkEgressUrl } from '../../shared/http/egress.js';
import { checkSmtpEndpoint } from './providers/smtp.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import type { ConnectorCreate } from './connector-schemas.js';
import { checkSecretRef, looksLikeLiteralSecret } from '../../shared/secrets.js';
import { seal } from '../../shared/vault/index.js';
import {
  connectorProblems,
  normalizeScopes,
  refsFor,
  resourcePatternProblem,
  scoreMatch,
  type FieldProblem,
} from './logic.js';
import { CONNECTORS } from './machines.js';
import { callbackSigningProblem, signingSecretProblem } from './connector-signing.js';
import { findReadyConnector } from './ready-connectors.js';
import type { ConnectorUpdate, TemplateInstall } from './schemas.js';
import { connectorShape, connectorViewWith, isOperator, refContext, secretStates } from './views.js';

const CLIENT_HOSTED = /^bridge:\/\/client\/[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * 400 naming every field refused; the first one's words lead the message (for a literal secret: put it in an env:
 * variable).
 */
function refused(problems: FieldProblem[]) {
  const [first] = problems;
  const more =
    problems.length > 1
      ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''}, see details)`
      : '';
  return invalidPayload(`${first!.path}: ${first!.message}${more}`, { problems });
}

/**
 * An endpoint a connector may be registered with: an https URL that passes
 * the egress checks (no credentials in it, no literal private or special
 * address; http too while AWP_ALLOW_PRIVATE_EGRESS is set, for local work),
 * or `bridge://client/<name>`. A query parameter that looks like a key is
 * refused: credentials belong in `credential.tokenRef`.
 */
export function checkConnectorEndpoint(deps: Pick<Deps, 'config'>, endpoint: string, kind?: string): string {
  // An email connector speaks SMTP, not HTTP: smtp:// or smtps://, checked by the same egress rules.
  if (kind === 'smtp') return checkSmtpEndpoint(endpoint, deps.config.AWP_ALLOW_PRIVATE_EGRESS);
  if (endpoint.startsWith('bridge:')) {
    if (!CLIENT_HOSTED.test(endpoint))
      throw invalidPayload('a client-hosted endpoint is bridge://client/<name> (letters, digits, . _ -)');
    return endpoint;
  }
  const url = checkEgressUrl(endpoint, { allowPrivate: deps.config.AWP_ALLOW_PRIVATE_EGRESS, requireHttps: true });
  for (const [name, value] of url.searchParams) {
    if (looksLikeLiteralSecret(value)) {
      throw invalidPayload(
        `endpoint query parameter ${name.slice(0, 50)} looks like a secret value: store it in the vault ` +
          `(POST /v1/bridge/credentials) and reference it from credential.tokenRef (cred:NAME)`,
      );
    }
  }
  return url.toString();
}

/** A signing secret as stored: sealed under the owning account's data key (null stays null). */
async function sealedSigningSecret(deps: Deps, accountId: string, secret: string | null | undefined) {
  return secret == null ? secret : seal(deps, accountId, secret);
}

/**
 * A tenant's connector holds `cred:` references only; `platform: true`
 * (operators, admin scope) registers a connector every account can use,
 * the only kind that may hold `env:` references.
 */
export async function registerConnector(
  deps: Deps,
  principal: Principal,
  body: ConnectorCreate,
): Promise<ConnectorRow> {
  const platform = body.platform === true;
  if (platform && !isOperator(principal))
    throw forbidden('Only an operator (admin scope) registers platform connectors');
  const scopes = normalizeScopes(body.scopes, body.caps);
  const credential = body.credential ? { type: body.credential.type, tokenRef: body.credential.tokenRef } : null;
  const problems = connectorProblems(
    { kind: body.kind, caps: body.caps, credential, scopes },
    deps.config.SECRET_ENV_PREFIX,
    platform,
  );
  const callbackSigning = body.callbackSigning ?? 'required';
  const signing = callbackSigningProblem(deps, callbackSigning, Boolean(body.signingSecret));
  if (signing) problems.push(signing);
  const secretProblem = signingSecretProblem(body.kind, body.signingSecret);
  if (secretProblem) problems.push(secretProblem);
  if (problems.length > 0) throw refused(problems);
  const endpoint = checkConnectorEndpoint(deps, body.endpoint, body.kind);
  const row = await insertConnector(deps.db, {
    id: newId('con'),
    account_id: principal.accountId,
    connector_id: body.connectorId,
    kind: body.kind,
    caps: body.caps,
    endpoint,
    credential,
    scopes,
    template_id: null,
    signing_secret: (await sealedSigningSecret(deps, principal.accountId, body.signingSecret)) ?? null,
    platform,
    callback_signing: callbackSigning,
  });
  if (!row)
    throw conflict(`Connector ${body.connectorId} already exists in this account`, { connectorId: body.connectorId });
  return row;
}

export async function findConnectors(deps: Deps, principal: Principal, query: { limit?: number; cursor?: string }) {
  return listConnectors(deps.db, principal.accountId, query.limit ?? 50, query.cursor);
}

export async function fetchConnector(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  connectorId: string,
): Promise<ConnectorRow> {
  const row = await getConnector(deps.db, principal.accountId, connectorId);
  if (!row) throw notFound(`Connector ${connectorId}`);
  return row;
}

/**
 * Status (checked against the connector machine: 409 with the allowed moves
 * otherwise), scopes, credential and endpoint, each checked as at
 * registration, written under the row's lock in one statement.
 */
export async function updateConnectorByClient(
  deps: Deps,
  principal: Principal,
  connectorId: string,
  change: ConnectorUpdate,
): Promise<ConnectorRow> {
  const signingSecret = await sealedSigningSecret(deps, principal.accountId, change.signingSecret);
  return deps.db.transaction(async (trx) => {
    const row = await getConnector(trx, principal.accountId, connectorId, true);
    if (!row) throw notFound(`Connector ${connectorId}`);
    if (row.account_id !== principal.accountId)
      throw forbidden(`Connector ${connectorId} is a platform connector: only the operator changes it`);
    const scopes = change.scopes ? normalizeScopes(change.scopes, row.caps) : undefined;
    const credential = change.credential
      ? { type: change.credential.type, tokenRef: change.credential.tokenRef }
      : undefined;
    const problems = connectorProblems(
      { kind: row.kind, caps: row.caps, credential: credential ?? row.credential, scopes: scopes ?? row.scopes },
      deps.config.SECRET_ENV_PREFIX,
      row.platform,
    );
    // A new secret ends the unsigned development setting unless the update names a setting itself.
    const callbackSigning = change.callbackSigning ?? (change.signingSecret ? 'required' : undefined);
    const hasSecret = change.signingSecret !== undefined ? Boolean(change.signingSecret) : Boolean(row.signing_secret);
    const signing = callbackSigningProblem(deps, callbackSigning ?? row.callback_signing, hasSecret);
    if (signing && callbackSigning !== undefined) problems.push(signing);
    const secretProblem = signingSecretProblem(row.kind, change.signingSecret);
    if (secretProblem) problems.push(secretProblem);
    if (problems.length > 0) throw refused(problems);
    const to = change.status ?? row.status;
    if (to !== row.status) CONNECTORS.assertMove(row.status, to, 'A connector');
    const endpoint =
      change.endpoint !== undefined ? checkConnectorEndpoint(deps, change.endpoint, row.kind) : undefined;
    const statusReason =
      to !== row.status || change.statusReason !== undefined ? (change.statusReason ?? null) : undefined;
    return updateConnector(trx, row.id, {
      status: to,
      statusReason,
      scopes,
      credential,
      endpoint,
      signingSecret,
      callbackSigning,
    });
  });
}

/** Removes a connector and its connection sessions. */
export async function removeConnector(deps: Deps, principal: Principal, connectorId: string): Promise<void> {
  if ((await deleteConnector(deps.db, principal.accountId, connectorId)) === 0)
    throw notFound(`Connector ${connectorId}`);
}

/**
 * Installs ready-made connectors, all or none, in one transaction. A
 * template whose connector is already there (same connectorId, installed
 * from the same template) is left as it is, so installing twice gives one
 * connector each; a connectorId taken by another connector is 409.
 */
export async function installReadyConnectors(deps: Deps, principal: Principal, body: TemplateInstall) {
  return deps.db.transaction(async (trx) => {
    const installed: Array<{ templateId: string; connectorId: string; created: boolean; row: ConnectorRow }> = [];
    for (const item of body.templates) {
      const template = findReadyConnector(item.templateId)!;
      const connectorId = item.connectorId ?? template.templateId;
      const given = item.endpoint ?? template.endpoint;
      if (!given) throw invalidPayload(`template ${template.templateId} needs an endpoint: give templates[].endpoint`);
      const endpoint = checkConnectorEndpoint(deps, given, template.kind);
      const fresh = await insertConnector(trx, {
        id: newId('con'),
        account_id: principal.accountId,
        connector_id: connectorId,
        kind: template.kind,
        caps: template.caps,
        endpoint,
        credential: template.credential,
        scopes: template.scopes,
        template_id: template.templateId,
      });
      const row = fresh ?? (await getConnector(trx, principal.accountId, connectorId))!;
      if (row.account_id !== principal.accountId || row.template_id !== template.templateId) {
        throw conflict(
          `Connector ${connectorId} already exists and was not installed from ${template.templateId}; give ` +
            `templates[].connectorId`,
          { connectorId, templateId: template.templateId },
        );
      }
      installed.push({ templateId: template.templateId, connectorId, created: Boolean(fresh), row });
    }
    return installed;
  });
}

/**
 * The caller's connectors (and platform ones) with `capability`, scored
 * against the request (resource, credential reference), best first. Whether
 * a platform connector's env: references are set is never part of a
 * tenant's answer (referenceStates reports them as operator-managed).
 */
export async function matchConnectors(
  deps: Deps,
  principal: Principal,
  want: { capability: string; resource?: string; tokenRef?: string; limit?: number },
) {
  const prefix = deps.config.SECRET_ENV_PREFIX;
  const problem = want.resource ? resourcePatternProblem(want.resource) : null;
  if (problem) throw invalidPayload(`/resource: resource ${problem}`);
  if (want.tokenRef) {
    // Only compared with the references connectors hold, never resolved: env: is admitted as a shape here.
    const check = checkSecretRef(want.tokenRef, { prefix });
    if (!check.ok) throw refused([{ path: '/tokenRef', message: check.message, problem: check.problem }]);
  }
  const rows = await connectorsWithCapability(deps.db, principal.accountId, want.capability, 500);
  const scored = [];
  for (const row of rows) {
    const shape = connectorShape(row);
    const states = await secretStates(deps, refContext(principal, row), refsFor(shape));
    const match = scoreMatch(shape, want, (refs) => states.filter((s) => refs.includes(s.ref)));
    if (match) scored.push({ row, states, ...match });
  }
  scored.sort((a, b) => b.score - a.score || a.row.connector_id.localeCompare(b.row.connector_id));
  return scored.slice(0, want.limit ?? 20).map(({ row, states, score, reasons }) => {
    const view = connectorViewWith(row, states);
    return { connectorId: row.connector_id, score, status: view.status, preflightReady: view.preflightReady, reasons };
  });
}
