import type { JobsOptions } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import { BRIDGE_ACTIONS_QUEUE } from '../../shared/queues.js';
import { actionsWithOverdueJobs, type ActionRow } from './actions-repository.js';

/**
 * The jobs bridge actions wait for, on the bridge-actions queue, and the
 * sweep that puts back the ones Redis lost. Every job has a fixed id (the
 * action's id and attempt), so adding one that exists adds nothing; the
 * worker's claim (action-worker.ts) takes an attempt only from the status and
 * attempt count it expects, so a job added twice still makes one attempt.
 */

const OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: true,
  removeOnFail: 1000,
};

/** The job an action under way waits for: its name, fixed id, data and when it is due. */
function jobOf(row: Pick<ActionRow, 'id' | 'status' | 'attempts' | 'next_attempt_at' | 'client_deadline'>) {
  const msUntil = (at: Date | null) => Math.max(0, at ? at.getTime() - Date.now() : 0);
  const data = (attempt: number) => ({ actionId: row.id, attempt });
  switch (row.status) {
    case 'queued':
      return { name: 'run', id: `${row.id}.${row.attempts + 1}`, data: data(row.attempts + 1), delay: 0 };
    case 'retrying':
      return {
        name: 'run',
        id: `${row.id}.${row.attempts + 1}`,
        data: data(row.attempts + 1),
        delay: msUntil(row.next_attempt_at),
      };
    // The attempt under way: its worker died and Redis lost the job too. The claim lets this attempt run again, with
    // the same Idempotency-Key.
    case 'running':
      return { name: 'run', id: `${row.id}.${row.attempts}`, data: data(row.attempts), delay: 0 };
    case 'awaitingClient':
      return {
        name: 'clientTimeout',
        id: `${row.id}.timeout.${row.attempts}`,
        data: data(row.attempts),
        delay: msUntil(row.client_deadline),
      };
    default:
      return null;
  }
}

/**
 * Puts the action's next attempt on the bridge-actions queue (one job per
 * attempt, so a retried enqueue adds nothing). A lost enqueue leaves the
 * action `queued`; the `bridge.actions` sweep (or `run`) enqueues it again.
 */
export async function enqueueAction(
  deps: Pick<Deps, 'queues'>,
  action: Pick<ActionRow, 'id' | 'attempts'>,
  delayMs = 0,
): Promise<void> {
  const attempt = action.attempts + 1;
  await deps.queues
    .queue(BRIDGE_ACTIONS_QUEUE)
    .add('run', { actionId: action.id, attempt }, { ...OPTIONS, jobId: `${action.id}.${attempt}`, delay: delayMs });
}

/** Times out a client-hosted action still waiting when its deadline passes. */
export async function enqueueClientTimeout(
  deps: Pick<Deps, 'queues'>,
  action: Pick<ActionRow, 'id' | 'attempts'>,
  delayMs: number,
): Promise<void> {
  await deps.queues
    .queue(BRIDGE_ACTIONS_QUEUE)
    .add(
      'clientTimeout',
      { actionId: action.id, attempt: action.attempts },
      { ...OPTIONS, jobId: `${action.id}.timeout.${action.attempts}`, delay: Math.max(0, delayMs) },
    );
}

/** Job states in which the job will still run (or is running). */
const LIVE = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

/**
 * Makes sure the job the action waits for exists: adds it when Redis has
 * none, or has only a spent one under its id (failed after its retries, e.g.
 * through a Postgres outage: a new one takes the id). True when it added one.
 */
export async function putBackJob(
  deps: Pick<Deps, 'queues'>,
  row: Pick<ActionRow, 'id' | 'status' | 'attempts' | 'next_attempt_at' | 'client_deadline'>,
): Promise<boolean> {
  const job = jobOf(row);
  if (!job) return false;
  const queue = deps.queues.queue(BRIDGE_ACTIONS_QUEUE);
  const state = await queue.getJobState(job.id);
  if (LIVE.has(state)) return false;
  if (state !== 'unknown') await queue.remove(job.id);
  await queue.add(job.name, job.data, { ...OPTIONS, jobId: job.id, delay: job.delay });
  return true;
}

/** How long past when its job was due an action under way may rest before the sweep checks that its job exists. */
export const OVERDUE_SECONDS = 60;
const BATCH = 200;
/** Actions one sweep checks at most (one Redis read each); the rest wait for the next sweep. */
const MAX_CHECKED = 2000;

/**
 * The `bridge.actions` sweep: every action under way whose job is overdue
 * (queued, a retry or a client's deadline `OVERDUE_SECONDS` past, or running
 * that long past BRIDGE_ACTION_TIMEOUT_MS) gets its job back if Redis lost it.
 * Without it such an action rested until someone called `run`.
 */
export async function sweepActions(deps: Deps): Promise<{ checked: number; requeued: number }> {
  let checked = 0;
  let requeued = 0;
  let after = '';
  while (checked < MAX_CHECKED) {
    const rows = await actionsWithOverdueJobs(
      deps.db,
      { overdueSeconds: OVERDUE_SECONDS, runningMs: deps.config.BRIDGE_ACTION_TIMEOUT_MS },
      after,
      BATCH,
    );
    for (const row of rows) if (await putBackJob(deps, row)) requeued++;
    checked += rows.length;
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1]!.id;
  }
  if (requeued > 0) deps.log.warn({ checked, requeued }, 'bridge action jobs put back');
  return { checked, requeued };
}
