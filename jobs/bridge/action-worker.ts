import type { Job } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import { lockActionById, moveAction, type ActionRow } from './actions-repository.js';
import { getConnectorByPk, type ConnectorRow } from './connectors-repository.js';
import type { Db } from '../../shared/db/knex.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { AppError } from '../../shared/errors.js';
import { wakeDispatcher } from '../events/index.js';
import { actionBody, callSummary, retryDelay } from './action-logic.js';
import { enqueueAction, enqueueClientTimeout } from './action-jobs.js';
import { callConnector } from './connector-call.js';
import type { ActionStatus } from './machines.js';
import { adapterRequestSummary, attemptOfHttp, callAdapter, type Attempt } from './provider-call.js';
import { adapterFor, type ProviderAdapter } from './providers/index.js';
import { processRunResume, resumeRunOfAction } from './run-resume.js';

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
  return {
    method: 'POST',
    ...callSummary(connector, row.idempotency_key, body),
    signed: Boolean(connector.signing_secret),
  };
}

/**
 * Claims the attempt the job names: a `queued` or `retrying` action whose
 * previous attempt was the one before, or a `running` one at this very
 * attempt (the job's worker died mid-call; the provider sees the same
 * Idempotency-Key again). Anything else was settled already: nothing to do.
 * A client-hosted action moves to `awaitingClient` here instead. A connector
 * whose kind has a provider adapter is called through it (`adapter`).
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
      const failed = await move(trx, row, 'failed', null, {
        error: {
          message: connector
            ? `connector ${row.connector_id} is disabled`
            : `connector ${row.connector_id} was deleted`,
        },
        finished: true,
      });
      return { row: failed, settled: true as const };
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
    const adapter = adapterFor(connector.kind);
    const body = adapter
      ? undefined
      : actionBody(
          {
            ...row,
            refs: {
              threadId: row.thread_id,
              caseId: row.case_id,
              missionId: row.mission_id,
              sessionId: row.session_id,
            },
          },
          row.created_at,
        );
    const running = rerun
      ? row
      : await move(trx, row, 'running', null, {
          attempts: attempt,
          requestSummary: adapter ? adapterRequestSummary(connector, row) : requestSummary(connector, row, body!),
        });
    return { row: running, connector, client: false, body, adapter };
  });
  if (deliveries > 0) await wakeDispatcher(deps);
  return claimed;
}

/**
 * Records what the attempt got: succeeded, awaitingProvider (the provider took it; its callback is to come, until
 * the deadline), retrying (with the next attempt queued, no sooner than a Retry-After the provider asked for) or
 * failed (with the provider's code and message). The action (when it settled) is returned.
 */
async function settle(deps: Deps, actionId: string, attempt: number, result: Attempt | { error: string }) {
  const settled = await deps.db.transaction(async (trx) => {
    const row = await lockActionById(trx, actionId);
    if (!row || row.status !== 'running' || row.attempts !== attempt) return null; // settled by someone else meanwhile
    if (!('verdict' in result))
      return {
        row: await move(trx, row, 'failed', null, { error: { message: result.error, attempt }, finished: true }),
      };
    const { response, proof, error, providerRef } = result;
    if (result.verdict === 'succeeded') {
      const done = await move(trx, row, 'succeeded', null, {
        response,
        proof,
        error: null,
        providerRef,
        finished: true,
        nextAttemptAt: null,
      });
      return { row: done };
    }
    if (result.verdict === 'pending') {
      const deadline = new Date(Date.now() + deps.config.BRIDGE_PROVIDER_TIMEOUT_MS);
      const note = `the provider took it${providerRef ? ` (${providerRef})` : ''}; its outcome comes by callback`;
      const waiting = await move(trx, row, 'awaitingProvider', note, {
        response,
        proof,
        error: null,
        providerRef,
        nextAttemptAt: null,
        clientDeadline: deadline,
      });
      return { row: waiting, deadlineMs: deps.config.BRIDGE_PROVIDER_TIMEOUT_MS };
    }
    const message = String(error?.message ?? 'the provider refused it');
    if (result.verdict === 'retry' && attempt < deps.config.BRIDGE_ACTION_MAX_ATTEMPTS) {
      const delayMs = retryDelay(attempt, deps.config.BRIDGE_ACTION_RETRY_BASE_MS, result.retryAfterMs);
      const retrying = await move(trx, row, 'retrying', message, {
        response,
        proof,
        error,
        nextAttemptAt: new Date(Date.now() + delayMs),
      });
      return { row: retrying, delayMs };
    }
    const why = result.verdict === 'retry' ? `gave up after ${attempt} attempts` : 'the provider refused it';
    return {
      row: await move(trx, row, 'failed', why, { response, proof, error, finished: true, nextAttemptAt: null }),
    };
  });
  if (settled?.delayMs !== undefined) await enqueueAction(deps, settled.row, settled.delayMs);
  if (settled?.deadlineMs !== undefined) await enqueueClientTimeout(deps, settled.row, settled.deadlineMs);
  return settled?.row ?? null;
}

/** One attempt: through the provider's adapter when the connector's kind has one, else one POST to its endpoint. */
async function attemptCall(
  deps: Deps,
  claimed: { row: ActionRow; connector: ConnectorRow; body?: string; adapter?: ProviderAdapter | null },
  attempt: number,
): Promise<Attempt | { error: string }> {
  const { row, connector } = claimed;
  try {
    if (claimed.adapter) return await callAdapter(deps, claimed.adapter, connector, row, attempt);
    const ctx = { accountId: row.account_id, allowEnv: connector.platform, via: 'bridge.action' };
    const result = await callConnector(deps, ctx, connector, {
      idempotencyKey: row.idempotency_key,
      msgId: row.id,
      body: claimed.body!,
      timeoutMs: deps.config.BRIDGE_ACTION_TIMEOUT_MS,
    });
    return attemptOfHttp(result, attempt);
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    // an unresolvable credential: no attempt can succeed until it is stored
    return { error: err.message };
  }
}

/**
 * The bridge-actions queue processor. `run` jobs make one attempt of an
 * action; `clientTimeout` jobs time out one still waiting for its client or
 * its provider; `runResume` jobs resume the run resting on a settled action
 * (run-resume.ts). Logs name the action and its status, never a header or a body.
 */
export async function processBridgeAction(job: Job, deps: Deps): Promise<unknown> {
  if (job.name === 'runResume') return processRunResume(deps, job.data as { actionId: string; attempt: number });
  const data = job.data as JobData;
  if (job.name === 'clientTimeout') return timeOutWaitingAction(deps, data);
  const claimed = await claim(deps, data);
  if (!claimed) return { skipped: true };
  if ('settled' in claimed) {
    await resumeRunOfAction(deps, claimed.row);
    return { status: claimed.row.status };
  }
  if (claimed.client) {
    await enqueueClientTimeout(deps, claimed.row, deps.config.BRIDGE_CLIENT_TIMEOUT_MS);
    return { status: 'awaitingClient' };
  }
  const result = await attemptCall(deps, claimed, data.attempt);
  const row = await settle(deps, claimed.row.id, data.attempt, result);
  await resumeRunOfAction(deps, row);
  deps.log.info(
    {
      actionId: claimed.row.id,
      attempt: data.attempt,
      adapter: claimed.adapter?.kind ?? null,
      httpStatus: 'verdict' in result ? (result.proof.responseStatus ?? null) : null,
      status: row?.status ?? null,
    },
    'bridge action attempt',
  );
  return { attempt: data.attempt };
}

/** Times out an action still waiting for its client (`awaitingClient`) or its provider (`awaitingProvider`). */
async function timeOutWaitingAction(deps: Deps, { actionId, attempt }: JobData) {
  const row = await deps.db.transaction(async (trx) => {
    const row = await lockActionById(trx, actionId);
    if (!row || row.attempts !== attempt) return null;
    if (row.status === 'awaitingClient')
      return move(trx, row, 'timedOut', `no update within ${deps.config.BRIDGE_CLIENT_TIMEOUT_MS} ms`, {
        error: { message: 'the client-hosted adapter did not report in time' },
        finished: true,
      });
    if (row.status === 'awaitingProvider')
      return move(trx, row, 'timedOut', `no callback within ${deps.config.BRIDGE_PROVIDER_TIMEOUT_MS} ms`, {
        error: {
          message:
            'the provider took it but did not report its outcome in time; run it again to ask the provider (the ' +
            'same idempotency key)',
        },
        finished: true,
      });
    return null;
  });
  if (!row) return { skipped: true };
  await resumeRunOfAction(deps, row);
  return { status: 'timedOut' };
}
