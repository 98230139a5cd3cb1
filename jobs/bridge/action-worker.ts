import type { Job } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import { lockActionById, moveAction, type ActionRow } from './actions-repository.js';
import { getConnectorByPk, type ConnectorRow } from './connectors-repository.js';
import type { Db } from '../../shared/db/knex.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { AppError } from '../../shared/errors.js';
import { wakeDispatcher } from '../events/index.js';
import { actionBody, providerRefOf, retryDelay, sha256Hex, verdictOf } from './action-logic.js';
import { enqueueAction, enqueueClientTimeout } from './action-jobs.js';
import { callConnector, type CallResult } from './connector-call.js';
import type { ActionStatus } from './machines.js';

const WORKER = 'bridge-actions';
type JobData = { actionId: string; attempt: number };

function move(
  trx: Db,
  row: ActionRow,
  to: ActionStatus,
  note: string | null,
  fields: Omit<Parameters<typeof moveAction>[2], 'status' | 'move'> = {},
) {
  return moveAction(trx, row.id, {
    status: to,
    move: { from: row.status, to, at: new Date().toISOString(), actor: WORKER, note },
    ...fields,
  });
}

/** What the endpoint is told, without the credential: where, which headers (names only), the body's hash, the key. */
function requestSummary(connector: ConnectorRow, row: ActionRow, body: string) {
  const url = new URL(connector.endpoint);
  return {
    method: 'POST',
    endpoint: `${url.origin}${url.pathname}`,
    bodySha256: sha256Hex(body),
    bodyBytes: Buffer.byteLength(body),
    idempotencyKey: row.idempotency_key,
    credential: connector.credential
      ? { type: connector.credential.type, tokenRef: connector.credential.tokenRef }
      : null,
    signed: Boolean(connector.signing_secret),
  };
}

/**
 * Claims the attempt the job names: a `queued` or `retrying` action whose
 * previous attempt was the one before, or a `running` one at this very
 * attempt (the job's worker died mid-call; the provider sees the same
 * Idempotency-Key again). Anything else was settled already: nothing to do.
 * A client-hosted action moves to `awaitingClient` here instead.
 */
async function claim(deps: Deps, { actionId, attempt }: JobData) {
  let deliveries = 0;
  const claimed = await deps.db.transaction(async (trx) => {
    const row = await lockActionById(trx, actionId);
    if (!row) return null;
    const rerun = row.status === 'running' && row.attempts === attempt;
    if (!rerun && !((row.status === 'queued' || row.status === 'retrying') && row.attempts === attempt - 1))
      return null;
    const connector = row.connector_pk ? await getConnectorByPk(trx, row.connector_pk) : null;
    if (!connector || connector.status === 'disabled') {
      await move(trx, row, 'failed', null, {
        error: {
          message: connector
            ? `connector ${row.connector_id} is disabled`
            : `connector ${row.connector_id} was deleted`,
        },
        finished: true,
      });
      return null;
    }
    if (row.hosting === 'client') {
      const deadline = new Date(Date.now() + deps.config.BRIDGE_CLIENT_TIMEOUT_MS);
      const waiting = await move(trx, row, 'awaitingClient', `dispatched to ${connector.endpoint}`, {
        attempts: attempt,
        clientDeadline: deadline,
      });
      deliveries = (
        await recordEvent(trx, {
          accountId: row.account_id,
          type: 'bridge.action.awaitingClient',
          subject: row.id,
          payload: {
            actionId: row.id,
            connectorId: row.connector_id,
            endpoint: connector.endpoint,
            capability: row.capability,
            deadline: deadline.toISOString(),
          },
        })
      ).deliveries;
      return { row: waiting, connector, client: true };
    }
    const body = actionBody(
      {
        ...row,
        refs: { threadId: row.thread_id, caseId: row.case_id, missionId: row.mission_id, sessionId: row.session_id },
      },
      row.created_at,
    );
    const running = rerun
      ? row
      : await move(trx, row, 'running', null, {
          attempts: attempt,
          requestSummary: requestSummary(connector, row, body),
        });
    return { row: running, connector, client: false, body };
  });
  if (deliveries > 0) await wakeDispatcher(deps);
  return claimed;
}

/** Records what the call got: succeeded, retrying (with the next attempt queued) or failed. */
async function settle(
  deps: Deps,
  claimed: { row: ActionRow; connector: ConnectorRow },
  attempt: number,
  result: CallResult | { error: string; permanent: true },
) {
  const again = await deps.db.transaction(async (trx) => {
    const row = await lockActionById(trx, claimed.row.id);
    if (!row || row.status !== 'running' || row.attempts !== attempt) return null; // settled by someone else meanwhile
    if ('permanent' in result) {
      await move(trx, row, 'failed', null, { error: { message: result.error, attempt }, finished: true });
      return null;
    }
    const response = result.status === null ? null : { status: result.status, body: result.answer };
    const verdict = verdictOf(result.status);
    const error =
      verdict === 'succeeded'
        ? null
        : { message: result.error ?? `endpoint answered ${result.status}`, status: result.status, attempt };
    if (verdict === 'succeeded') {
      await move(trx, row, 'succeeded', null, {
        response,
        proof: result.proof,
        error: null,
        providerRef: providerRefOf(result.answer),
        finished: true,
        nextAttemptAt: null,
      });
      return null;
    }
    if (verdict === 'retry' && attempt < deps.config.BRIDGE_ACTION_MAX_ATTEMPTS) {
      const delayMs = retryDelay(attempt, deps.config.BRIDGE_ACTION_RETRY_BASE_MS, result.retryAfterMs);
      const retrying = await move(trx, row, 'retrying', error!.message, {
        response,
        proof: result.proof,
        error,
        nextAttemptAt: new Date(Date.now() + delayMs),
      });
      return { row: retrying, delayMs };
    }
    const why = verdict === 'retry' ? `gave up after ${attempt} attempts` : 'the endpoint refused it';
    await move(trx, row, 'failed', why, { response, proof: result.proof, error, finished: true, nextAttemptAt: null });
    return null;
  });
  if (again) await enqueueAction(deps, again.row, again.delayMs);
}

/**
 * The bridge-actions queue processor. `run` jobs make one attempt of an
 * action; `clientTimeout` jobs time out a client-hosted one still waiting.
 * Logs name the action and its status, never a header or a body.
 */
export async function processBridgeAction(job: Job, deps: Deps): Promise<unknown> {
  const data = job.data as JobData;
  if (job.name === 'clientTimeout') return timeOutClientAction(deps, data);
  const claimed = await claim(deps, data);
  if (!claimed) return { skipped: true };
  if (claimed.client) {
    await enqueueClientTimeout(deps, claimed.row, deps.config.BRIDGE_CLIENT_TIMEOUT_MS);
    return { status: 'awaitingClient' };
  }
  let result: CallResult | { error: string; permanent: true };
  try {
    const ctx = { accountId: claimed.row.account_id, allowEnv: claimed.connector.platform, via: 'bridge.action' };
    result = await callConnector(deps, ctx, claimed.connector, {
      idempotencyKey: claimed.row.idempotency_key,
      msgId: claimed.row.id,
      body: claimed.body!,
      timeoutMs: deps.config.BRIDGE_ACTION_TIMEOUT_MS,
    });
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    // an unresolvable credential: no attempt can succeed until it is stored
    result = { error: err.message, permanent: true };
  }
  await settle(deps, claimed, data.attempt, result);
  deps.log.info(
    { actionId: claimed.row.id, attempt: data.attempt, httpStatus: 'status' in result ? result.status : null },
    'bridge action attempt',
  );
  return { attempt: data.attempt };
}

async function timeOutClientAction(deps: Deps, { actionId, attempt }: JobData) {
  return deps.db.transaction(async (trx) => {
    const row = await lockActionById(trx, actionId);
    if (!row || row.status !== 'awaitingClient' || row.attempts !== attempt) return { skipped: true };
    await move(trx, row, 'timedOut', `no update within ${deps.config.BRIDGE_CLIENT_TIMEOUT_MS} ms`, {
      error: { message: 'the client-hosted adapter did not report in time' },
      finished: true,
    });
    return { status: 'timedOut' };
  });
}
