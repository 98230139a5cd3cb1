import { existsSync } from 'node:fs';
import type { Job, JobsOptions } from 'bullmq';
import type { Deps } from '../../../shared/deps.js';
import { conflict, policyViolation } from '../../../shared/errors.js';
import type { EgressPin } from '../../../shared/http/pinned-dns.js';
import { PORTAL_ACTIONS_QUEUE } from '../../../shared/queues.js';
import type { Principal } from '../../../shared/schemas/auth.js';
import { requireEffect } from '../../orchestrator/index.js';
import { executePortalAction } from './browser.js';
import {
  claimPortalRun,
  failInterruptedRun,
  getPortalSession,
  movePortalAction,
  portalActionsOverdue,
  queuePortalRun,
  type PortalActionRow,
} from './repository.js';
import { fetchPortalAction, preflightPortalSession } from './service.js';

/**
 * Portal actions run on the portal-actions queue: `run` (and the
 * portalBrowser tool) queues one attempt and answers `202` at once; a worker
 * claims the attempt and drives the browser (./browser.ts); the caller
 * follows with GET …/actions/{id}. Each attempt is one job with a fixed id
 * (`<id>.<attempt>`), and the worker takes it only from `queued` at that
 * attempt, so a job given twice runs once. A run whose worker died midway is
 * not run again by itself (a form may have been sent): it ends `failed`, and
 * a new `run` starts a new attempt.
 */

const OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: 1000,
};
const LIVE = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);
const jobId = (row: Pick<PortalActionRow, 'id' | 'attempts'>) => `${row.id}.${row.attempts}`;

/** Makes sure the attempt's job exists (Redis may have lost it, or spent it): adds it unless it is live. */
async function putBackPortalJob(deps: Pick<Deps, 'queues'>, row: PortalActionRow): Promise<boolean> {
  const queue = deps.queues.queue(PORTAL_ACTIONS_QUEUE);
  const state = await queue.getJobState(jobId(row));
  if (LIVE.has(state)) return false;
  if (state !== 'unknown') await queue.remove(jobId(row));
  await queue.add('run', { actionId: row.id, attempt: row.attempts }, { ...OPTIONS, jobId: jobId(row) });
  return true;
}

const underWay = (row: PortalActionRow) => row.status === 'running' || (row.status === 'queued' && row.attempts > 0);

/**
 * POST …/actions/{id}/run and POST /v1/tools/portalBrowser: idempotent. An
 * action under way (asked to run and `queued`, or `running`) is answered as
 * it is, its job put back if Redis lost it; a created, `failed` or `blocked`
 * one is queued for a new attempt. `409` once it `succeeded`; `422` when this
 * server has no browser (nothing is queued).
 */
export async function requestPortalRun(deps: Deps, principal: Principal, id: string): Promise<PortalActionRow> {
  // The tool and the bridge route run the same effect: both need the bridge's write scope.
  requireEffect(principal, 'bridge.portal');
  const action = await fetchPortalAction(deps, principal, id);
  if (underWay(action)) {
    if (action.status === 'queued') await putBackPortalJob(deps, action);
    return action;
  }
  if (action.status === 'succeeded')
    throw conflict(`Portal action ${action.id} has succeeded and cannot run again`, {
      status: action.status,
      allowed: ['queued', 'failed', 'blocked'],
    });
  if (!existsSync(deps.config.BROWSER_EXECUTABLE))
    throw policyViolation(
      `No browser on this server: ${deps.config.BROWSER_EXECUTABLE} does not exist (install chromium or set ` +
        `BROWSER_EXECUTABLE)`,
      { browser: 'missing' },
    );
  const queued = await queuePortalRun(deps.db, action.id);
  // Another request queued it between the read and the write: answer that attempt.
  if (!queued) return fetchPortalAction(deps, principal, id);
  await putBackPortalJob(deps, queued);
  return queued;
}

/**
 * The worker's part: claims `attempt` (`queued` → `running`), runs the
 * session's preflight again (anything but `ready` ends it `blocked` before
 * the portal sees a request) and drives the browser (`failed` when this
 * worker has none). An attempt found
 * `running` was taken by a worker that died: it ends `failed`. Null when the
 * attempt was settled already (nothing to do).
 */
export async function runQueuedPortalAction(
  deps: Deps,
  actionId: string,
  attempt: number,
  pin: EgressPin = {},
): Promise<PortalActionRow | null> {
  const running = await claimPortalRun(deps.db, actionId, attempt);
  if (!running)
    return failInterruptedRun(
      deps.db,
      actionId,
      attempt,
      'the worker running this action stopped midway; it was not run again (run it to try once more)',
    );
  const settle = (to: string, fields: Parameters<typeof movePortalAction>[4]) =>
    movePortalAction(deps.db, actionId, ['running'], to, { ...fields, finished: true }, attempt);
  const session = await getPortalSession(deps.db, running.account_id, running.session_id);
  if (!session) return settle('failed', { error: 'the portal session was deleted' });
  const preflight = await preflightPortalSession(deps, session);
  if (preflight.status !== 'ready')
    return settle('blocked', {
      blocked: {
        reason: `preflight.${preflight.status}`,
        message: `the session's preflight is ${preflight.status}: ${preflight.errors.map((e) => e.message).join('; ')}`,
        step: null,
        errors: preflight.errors,
      },
    });
  if (!existsSync(deps.config.BROWSER_EXECUTABLE))
    return settle('failed', { error: `No browser on the worker: ${deps.config.BROWSER_EXECUTABLE} does not exist` });
  return executePortalAction(deps, running, session, pin);
}

/** The portal-actions queue processor: one attempt of one action. */
export async function processPortalAction(job: Job, deps: Deps): Promise<unknown> {
  const { actionId, attempt } = job.data as { actionId: string; attempt: number };
  const row = await runQueuedPortalAction(deps, actionId, attempt);
  deps.log.info({ portalActionId: actionId, attempt, status: row?.status ?? 'skipped' }, 'portal action attempt');
  return { status: row?.status ?? 'skipped' };
}

/** How long past its due time an action may rest before the sweep checks that its job exists. */
export const OVERDUE_SECONDS = 60;
const BATCH = 200;

/**
 * The `portal.actions` sweep: an action asked to run that rests `queued`
 * (or `running` past PORTAL_ACTION_TIMEOUT_MS) for a minute gets its job back
 * if Redis lost it; a `running` one's job then ends it `failed`, not run
 * again.
 */
export async function sweepPortalActions(deps: Deps): Promise<{ checked: number; requeued: number }> {
  const rows = await portalActionsOverdue(
    deps.db,
    { overdueSeconds: OVERDUE_SECONDS, runningMs: deps.config.PORTAL_ACTION_TIMEOUT_MS },
    BATCH,
  );
  let requeued = 0;
  for (const row of rows) if (await putBackPortalJob(deps, row)) requeued++;
  if (requeued > 0) deps.log.warn({ checked: rows.length, requeued }, 'portal action jobs put back');
  return { checked: rows.length, requeued };
}
