import type { Deps } from '../../../shared/deps.js';
import { getConnector } from '../connectors-repository.js';
import {
  getPortalAction,
  getPortalSession,
  insertPortalActions,
  insertPortalSession,
  listPortalActions,
  listPortalSessions,
  setPortalPreflight,
  type PortalSessionRow,
} from './repository.js';
import { invalidPayload, notFound } from '../../../shared/errors.js';
import { checkEgressUrl } from '../../../shared/http/egress.js';
import { newId } from '../../../shared/ids.js';
import type { Principal } from '../../../shared/schemas/auth.js';
import type { PortalActionCreate, PortalSessionCreate, PortalStep } from './schemas.js';
import { checkSecretRef } from '../../../shared/secrets.js';
import { referenceStates } from '../../credentials/index.js';
import { playbookById, templateById } from './catalog.js';
import { CREDENTIAL_FIELD, missingInputs, preflightVerdict, stepProblems, type Credential } from './logic.js';

/** Portal sessions and actions: created, checked and listed here; run by jobs/bridge/portal/browser.ts. */

type Db = Pick<Deps, 'db'>;
type WithConfig = Pick<Deps, 'db' | 'config'>;

function originOf(raw: string, at: string, allowPrivate: boolean): string {
  try {
    return checkEgressUrl(raw, { allowPrivate, requireHttps: false }).origin;
  } catch (err) {
    throw invalidPayload(`${at}: ${(err as Error).message.replace(/^endpoint/, 'the target')}`);
  }
}

export async function createPortalSession(
  deps: WithConfig,
  principal: Principal,
  body: PortalSessionCreate,
): Promise<PortalSessionRow> {
  for (const [field, ref] of Object.entries(body.credentials)) {
    // A portal session is a tenant's: vault references only (env: is for operator platform connectors).
    const check = checkSecretRef(ref, { prefix: deps.config.SECRET_ENV_PREFIX, allowEnv: false });
    if (!check.ok) throw invalidPayload(`/credentials/${field}: ${check.message}`);
  }
  let target = body.targetOrigin;
  if (body.connectorId) {
    const connector = await getConnector(deps.db, principal.accountId, body.connectorId);
    if (!connector) throw notFound(`Connector ${body.connectorId}`);
    target ??= /^https?:/.test(connector.endpoint) ? connector.endpoint : undefined;
  }
  if (!target)
    throw invalidPayload('/targetOrigin: give a targetOrigin, or a connectorId whose endpoint is an http(s) URL');
  const origin = originOf(target, '/targetOrigin', deps.config.AWP_ALLOW_PRIVATE_EGRESS);
  const scope = {
    origins: body.scope?.origins.map((o, i) =>
      originOf(o, `/scope/origins/${i}`, deps.config.AWP_ALLOW_PRIVATE_EGRESS),
    ) ?? [origin],
    paths: body.scope?.paths ?? ['/**'],
  };
  return insertPortalSession(deps.db, {
    id: newId('psn'),
    account_id: principal.accountId,
    connector_id: body.connectorId ?? null,
    target_origin: origin,
    credentials: body.credentials,
    scope,
    mfa_method: body.mfaMethod ?? 'none',
  });
}

export async function fetchPortalSession(deps: Db, principal: Principal, id: string): Promise<PortalSessionRow> {
  const row = await getPortalSession(deps.db, principal.accountId, id);
  if (!row) throw notFound(`Portal session ${id}`);
  return row;
}

export async function findPortalSessions(deps: Db, principal: Principal, query: { limit?: number; cursor?: string }) {
  return listPortalSessions(deps.db, principal.accountId, query.limit ?? 50, query.cursor);
}

/**
 * Runs the session's checks against the account's vault now, stores the result and answers it; a value is never read
 * out.
 */
export async function preflightPortalSession(deps: WithConfig, session: PortalSessionRow) {
  const refs = Object.values(session.credentials).filter((r): r is string => typeof r === 'string');
  const states = await referenceStates(deps, { accountId: session.account_id, allowEnv: false }, refs);
  const seed = session.credentials.totpSeedRef;
  const verdict = preflightVerdict({
    unset: states.filter((s) => !s.set).map((s) => ({ ref: s.ref, variable: s.variable, why: s.refused })),
    mfaMethod: session.mfa_method,
    totpSeedSet: Boolean(seed && states.find((s) => s.ref === seed)?.set),
    targetOrigin: session.target_origin,
    scope: session.scope,
  });
  const preflight = { ...verdict, at: new Date().toISOString() };
  await setPortalPreflight(deps.db, session.id, preflight);
  return preflight;
}

const credentialsOf = (session: PortalSessionRow): Partial<Record<Credential, string>> =>
  Object.fromEntries(
    (Object.keys(CREDENTIAL_FIELD) as Credential[])
      .map((c) => [c, session.credentials[CREDENTIAL_FIELD[c]]])
      .filter(([, v]) => v),
  );

function checkedSteps(
  session: PortalSessionRow,
  steps: PortalStep[],
  inputs: Record<string, string>,
  at = '',
): PortalStep[] {
  const problems = stepProblems(steps, {
    origin: session.target_origin,
    scope: session.scope,
    inputs,
    credentials: credentialsOf(session),
  });
  if (problems.length > 0)
    throw invalidPayload(
      `${at}${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more, see details)` : ''}`,
      { problems },
    );
  return steps;
}

function templateSteps(templateId: string, inputs: Record<string, string>, at: string): PortalStep[] {
  const template = templateById(templateId);
  if (!template) throw notFound(`Portal template ${templateId}`);
  const missing = missingInputs(template.inputs, inputs);
  if (missing.length > 0)
    throw invalidPayload(`${at}/inputs: template ${templateId} needs ${missing.join(', ')}`, { missing });
  return template.steps as PortalStep[];
}

/**
 * A portal action from a template or a step list, validated against the session (inputs given, credentials held,
 * navigations in scope), `queued`.
 */
export async function createPortalAction(deps: Db, principal: Principal, body: PortalActionCreate) {
  if ((body.templateId === undefined) === (body.steps === undefined))
    throw invalidPayload('/: give exactly one of templateId and steps');
  const session = await fetchPortalSession(deps, principal, body.portalSessionId);
  const inputs = body.inputs ?? {};
  const steps = checkedSteps(session, body.steps ?? templateSteps(body.templateId!, inputs, ''), inputs);
  const [row] = await insertPortalActions(deps.db, [
    {
      id: newId('pac'),
      account_id: principal.accountId,
      session_id: session.id,
      template_id: body.templateId ?? null,
      playbook_id: null,
      status: 'queued',
      steps,
      inputs,
    },
  ]);
  return row!;
}

/** A playbook's actions, each checked as a created one is, written together (one statement) or not at all. */
export async function instantiatePlaybook(
  deps: Db,
  principal: Principal,
  playbookId: string,
  body: { portalSessionId: string; inputs?: Record<string, string> },
) {
  const playbook = playbookById(playbookId);
  if (!playbook) throw notFound(`Portal playbook ${playbookId}`);
  const session = await fetchPortalSession(deps, principal, body.portalSessionId);
  const inputs = body.inputs ?? {};
  const rows = playbook.actions.map((a, i) => ({
    id: newId('pac'),
    account_id: principal.accountId,
    session_id: session.id,
    template_id: a.templateId,
    playbook_id: playbookId,
    status: 'queued',
    inputs,
    steps: checkedSteps(session, templateSteps(a.templateId, inputs, `/actions/${i}`), inputs, `/actions/${i}`),
  }));
  return insertPortalActions(deps.db, rows);
}

export async function fetchPortalAction(deps: Db, principal: Principal, id: string) {
  const row = await getPortalAction(deps.db, principal.accountId, id);
  if (!row) throw notFound(`Portal action ${id}`);
  return row;
}

export async function findPortalActions(
  deps: Db,
  principal: Principal,
  query: { status?: string; portalSessionId?: string; limit?: number; cursor?: string },
) {
  return listPortalActions(deps.db, principal.accountId, query, query.limit ?? 50, query.cursor);
}
