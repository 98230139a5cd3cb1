import type { Deps } from '../../shared/deps.js';
import { lockRun } from '../../shared/db/run-writes.js';
import { AppError, conflict } from '../../shared/errors.js';
import { BRIDGE_ACTIONS_QUEUE } from '../../shared/queues.js';
import { enqueueResumed, inRunTx, resolveRunWaitpoint, type ResumedRun } from '../orchestrator/index.js';
import {
  actionsWithUnreadRuns,
  getActionById,
  lockActionById,
  markRunRead,
  type ActionRow,
} from './actions-repository.js';
import { RUN_SETTLED_STATUSES } from './machines.js';

/**
 * How a run's bridge step hears that its action settled. The step waits for the action a short while itself
 * (BRIDGE_STEP_WAIT_MS); an action still under way then rests the run at `awaitingAction`, a waitpoint naming the
 * action, and the action's end resumes it here. Each action a run made is read by that run once (`run_read_at`): by
 * the step that saw it settle, or by the resume. Three paths lead here, so none is lost:
 *
 * - right after the commit that settled the action (the worker's, a client's update, a deadline);
 * - a `runResume` job on the bridge-actions queue, when the run had not come to rest yet (the step was still
 *   waiting, or about to rest): tried again with a growing delay, RESUME_TRIES times;
 * - the `bridge.actions` sweep, for an action settled a minute ago whose run has not had it (a resume lost with its
 *   process or its job, or settled by a channels callback).
 */

/** The run status of a run resting until its bridge action settles. */
export const AWAITING_ACTION = 'awaitingAction';
/** Tries of a `runResume` job while the run has not come to rest: about a minute in all, then the sweep's. */
const RESUME_TRIES = 8;

type Outcome = 'resumed' | 'notWaiting' | 'notAtRest' | 'none';

const settledForRun = (status: string) => (RUN_SETTLED_STATUSES as readonly string[]).includes(status);

/** Resumes the run resting on this settled action, once; answers what it found. */
async function resumeOnce(deps: Deps, action: Pick<ActionRow, 'id' | 'account_id' | 'run_id'>): Promise<Outcome> {
  const runId = action.run_id!;
  let done: { outcome: Outcome; resumed?: ResumedRun };
  try {
    done = await inRunTx(deps, runId, action.account_id, async (trx, emit): Promise<typeof done> => {
      // The run's row first, then the action's: the order every resume of a run takes.
      const run = await lockRun(trx, action.account_id, runId);
      const row = await lockActionById(trx, action.id);
      if (!row || row.run_read_at || !settledForRun(row.status)) return { outcome: 'none' };
      if (run && !run.finished_at && (run.status === 'queued' || run.status === 'running'))
        return { outcome: 'notAtRest' };
      if (!run || run.finished_at || run.status !== AWAITING_ACTION) {
        await markRunRead(trx, row.id);
        return { outcome: 'notWaiting' };
      }
      const resumed = await resolveRunWaitpoint(trx, emit, action.account_id, runId, (r, wp) => {
        if (wp.domain !== 'bridge' || wp.payload.actionId !== row.id)
          throw conflict(`Run ${runId} waits on something else than bridge action ${row.id}`);
        return { resolution: { actionId: row.id, actionStatus: row.status }, route: r.route };
      });
      await markRunRead(trx, row.id);
      return { outcome: 'resumed', resumed };
    });
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 409) throw err;
    // The run rests on another waitpoint: this action is not what it waits for.
    await markRunRead(deps.db, action.id);
    return 'notWaiting';
  }
  if (done.resumed) await enqueueResumed(deps, runId, done.resumed);
  return done.outcome;
}

async function enqueueResumeTry(deps: Pick<Deps, 'queues'>, actionId: string, attempt: number): Promise<void> {
  await deps.queues
    .queue(BRIDGE_ACTIONS_QUEUE)
    .add(
      'runResume',
      { actionId, attempt },
      { jobId: `${actionId}.resume.${attempt}`, delay: 250 * 2 ** attempt, removeOnComplete: true, removeOnFail: 1000 },
    );
}

/**
 * Called after a commit that may have settled an action: resumes the run resting on it, or, when the run has not
 * come to rest yet, tries again shortly through a `runResume` job. Best effort: a failure is left to the sweep.
 */
export async function resumeRunOfAction(
  deps: Deps,
  action: Pick<ActionRow, 'id' | 'account_id' | 'run_id' | 'status'> | null,
): Promise<void> {
  if (!action?.run_id || !settledForRun(action.status)) return;
  try {
    if ((await resumeOnce(deps, action)) === 'notAtRest') await enqueueResumeTry(deps, action.id, 1);
  } catch (err) {
    deps.log.warn({ actionId: action.id, err: (err as Error).message }, 'resuming the run of a bridge action failed');
  }
}

/** The `runResume` job: one more try, and the next one while the run has still not come to rest. */
export async function processRunResume(deps: Deps, data: { actionId: string; attempt: number }): Promise<unknown> {
  const row = await getActionById(deps.db, data.actionId);
  if (!row?.run_id) return { skipped: true };
  const outcome = await resumeOnce(deps, row);
  if (outcome === 'notAtRest' && data.attempt < RESUME_TRIES)
    await enqueueResumeTry(deps, data.actionId, data.attempt + 1);
  return { outcome };
}

/**
 * The sweep's part: runs that have not had an action of theirs settled `overdueSeconds` ago are resumed (or the
 * action marked read when its run waits no more).
 */
export async function sweepUnreadRuns(deps: Deps, overdueSeconds: number, max: number): Promise<number> {
  let resumed = 0;
  let after = '';
  for (let checked = 0; checked < max;) {
    const rows = await actionsWithUnreadRuns(deps.db, overdueSeconds, after, 100);
    for (const row of rows) if ((await resumeOnce(deps, row)) === 'resumed') resumed++;
    checked += rows.length;
    if (rows.length < 100) break;
    after = rows[rows.length - 1]!.id;
  }
  return resumed;
}
