import type { Deps } from '../../shared/deps.js';
import {
  getAction,
  insertAction,
  listActions,
  moveAction,
  type ActionFilter,
  type ActionRow,
} from './actions-repository.js';
import { getThread } from '../channels/index.js';
import { getConnector, type ConnectorRow } from './connectors-repository.js';
import type { Db } from '../../shared/db/knex.js';
import { conflict, invalidPayload, notFound, policyViolation } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { requireEffect } from '../orchestrator/index.js';
import { requireOutreach } from '../policy/index.js';
import { enqueueAction, putBackJob } from './action-jobs.js';
import { resourcePatternProblem } from './logic.js';
import { ACTIONS, type ActionStatus } from './machines.js';
import { runChecks } from './preflight.js';
import { isClientHosted } from './views.js';

export interface ActionRequest {
  connectorId: string;
  capability: string;
  input?: Record<string, unknown>;
  resource?: string;
  threadId?: string;
  sessionId?: string;
  caseId?: string;
  missionId?: string;
}

/** An action that passed its checks, ready to be written (in the caller's transaction) and queued after the commit. */
export interface CheckedAction {
  connector: ConnectorRow;
  request: ActionRequest;
}

const actorOf = (principal: Principal) => `token:${principal.tokenId}`;

/**
 * The preflight's checks, before anything is written: the connector (404),
 * not disabled (409), the capability among its caps, the bridge policy, a
 * covering scope, the session when one is named (revoked or expired: 409),
 * and every reference set on this server; any other failure is 422 naming
 * each check. A thread must be the caller's (404). Last, an action that
 * contacts a person passes outreach compliance (jobs/policy/outreach-service.ts).
 * First of all, the caller's grant must cover a connector call (403 naming the scope).
 */
export async function checkAction(deps: Deps, principal: Principal, request: ActionRequest): Promise<CheckedAction> {
  // Whoever asks (a bridge route, a proxy mission's send, a run's deploy) holds bridge:write, and channels:write to
  // post on a thread.
  requireEffect(principal, 'bridge.action');
  if (request.threadId) requireEffect(principal, 'channels.message');
  if (request.resource) {
    const problem = resourcePatternProblem(request.resource);
    if (problem) throw invalidPayload(`/resource: resource ${problem}`);
  }
  const connector = await getConnector(deps.db, principal.accountId, request.connectorId);
  if (!connector) throw notFound(`Connector ${request.connectorId}`);
  if (connector.status === 'disabled')
    throw conflict(`Connector ${connector.connector_id} is disabled; enable it before sending actions`, {
      connectorId: connector.connector_id,
      status: connector.status,
    });
  if (request.threadId && !(await getThread(deps.db, principal.accountId, request.threadId)))
    throw notFound(`Thread ${request.threadId}`);
  const { errors, status } = await runChecks(
    deps,
    principal,
    connector,
    { action: request.capability, resource: request.resource, sessionId: request.sessionId },
    new AbortController().signal,
  );
  if (errors.length > 0)
    throw policyViolation(
      `${errors[0]!.message}${errors.length > 1 ? ` (and ${errors.length - 1} more, see details)` : ''}`,
      { preflightStatus: status, errors },
    );
  const input = await requireOutreach(
    deps,
    principal,
    request.capability,
    request.input ?? {},
    request.input?.part ? 'proxy.mission' : 'bridge.action',
  );
  return { connector, request: { ...request, input } };
}

/** Writes a checked action, `queued`, in `trx`; its idempotency key is fixed here for every attempt to come. */
export async function writeAction(
  trx: Db,
  accountId: string,
  checked: CheckedAction,
  actor: string,
  id = newId('bac'),
): Promise<ActionRow> {
  const { connector, request } = checked;
  return insertAction(trx, {
    id,
    account_id: accountId,
    connector_pk: connector.id,
    connector_id: connector.connector_id,
    capability: request.capability,
    resource: request.resource ?? null,
    input: request.input ?? {},
    thread_id: request.threadId ?? null,
    session_id: request.sessionId ?? null,
    case_id: request.caseId ?? null,
    mission_id: request.missionId ?? null,
    hosting: isClientHosted(connector.endpoint) ? 'client' : 'hosted',
    status: 'queued',
    idempotency_key: id,
    history: [{ from: null, to: 'queued', at: new Date().toISOString(), actor, note: 'created' }],
  });
}

export async function createAction(deps: Deps, principal: Principal, request: ActionRequest): Promise<ActionRow> {
  const checked = await checkAction(deps, principal, request);
  const row = await writeAction(deps.db, principal.accountId, checked, actorOf(principal));
  await enqueueAction(deps, row);
  return row;
}

export async function findActions(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  filter: ActionFilter & { limit?: number; cursor?: string },
) {
  return listActions(deps.db, principal.accountId, filter, filter.limit ?? 50, filter.cursor);
}

export async function fetchAction(deps: Pick<Deps, 'db'>, principal: Principal, actionId: string): Promise<ActionRow> {
  const row = await getAction(deps.db, principal.accountId, actionId);
  if (!row) throw notFound(`Bridge action ${actionId}`);
  return row;
}

/**
 * The one way an action changes status outside the worker: checks the move
 * against the table (409 with the allowed moves otherwise) and appends it
 * to the history. `row` must be locked in `trx`.
 */
export async function transitionAction(
  trx: Db,
  row: ActionRow,
  to: ActionStatus,
  actor: string,
  fields: {
    note?: string | null;
    response?: Record<string, unknown> | null;
    proof?: Record<string, unknown> | null;
    error?: Record<string, unknown> | null;
    providerRef?: string | null;
  } = {},
): Promise<ActionRow> {
  ACTIONS.assertMove(row.status, to, 'A bridge action');
  const { note, ...rest } = fields;
  return moveAction(trx, row.id, {
    status: to,
    move: { from: row.status, to, at: new Date().toISOString(), actor, note: note ?? null },
    ...rest,
    ...(to === 'queued'
      ? { finished: false, error: null }
      : ACTIONS.isTerminal(to) || to === 'failed' || to === 'timedOut' || to === 'succeeded'
        ? { finished: true }
        : {}),
  });
}

/** How a client-hosted adapter (or a client reconciling by hand) reports: status, response, proof or error. */
export async function updateActionByClient(
  deps: Deps,
  principal: Principal,
  actionId: string,
  body: {
    status: ActionStatus;
    response?: Record<string, unknown>;
    proof?: Record<string, unknown>;
    error?: Record<string, unknown>;
    providerRef?: string;
    note?: string;
  },
): Promise<ActionRow> {
  if (body.status === 'failed' && !body.error)
    throw invalidPayload('A failed action carries its error', [
      { path: '/error', message: 'required when status is failed', keyword: 'required' },
    ]);
  return deps.db.transaction(async (trx) => {
    const row = await getAction(trx, principal.accountId, actionId, true);
    if (!row) throw notFound(`Bridge action ${actionId}`);
    return transitionAction(trx, row, body.status, actorOf(principal), {
      note: body.note,
      response: body.response,
      proof: body.proof,
      error: body.error,
      providerRef: body.providerRef,
    });
  });
}

/** Statuses `run` answers as they are: the action is waiting for its worker, its provider or its client. */
const UNDER_WAY = new Set<string>(['queued', 'running', 'retrying', 'awaitingClient']);

/**
 * Runs an action: idempotent, so a client may call it right after creating one. An action under way is answered as
 * it is, and the job it waits for is put back in case Redis lost it (each job has a fixed id, so while it exists
 * this adds nothing): a `queued` one's attempt, a `retrying` one's next attempt at its time, an `awaitingClient`
 * one's timeout at its deadline; a `running` one is the worker's (the `bridge.actions` sweep puts its job back once
 * the call's time is long over). A `failed` or `timedOut` one goes back to `queued` with the same idempotency key.
 * Only an action that has ended for good (`succeeded`, `delivered`) is 409.
 */
export async function runAction(deps: Deps, principal: Principal, actionId: string): Promise<ActionRow> {
  const row = await deps.db.transaction(async (trx) => {
    const locked = await getAction(trx, principal.accountId, actionId, true);
    if (!locked) throw notFound(`Bridge action ${actionId}`);
    if (UNDER_WAY.has(locked.status)) return locked;
    if (!ACTIONS.canMove(locked.status, 'queued'))
      throw conflict(`Bridge action ${actionId} has ended (${locked.status}) and cannot run again`, {
        status: locked.status,
        allowed: ACTIONS.allowed(locked.status),
      });
    return transitionAction(trx, locked, 'queued', actorOf(principal), { note: 'run again' });
  });
  if (row.status !== 'running') await putBackJob(deps, row);
  return row;
}
