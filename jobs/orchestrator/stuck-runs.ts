import type { Deps } from '../../shared/deps.js';
import {
  lastResolvedWaitpoint,
  markRedriven,
  stalledRuns,
  type RunCursor,
  type StalledRun,
} from '../../shared/db/run-writes.js';
import { enqueueFinalize, enqueueSegment } from './flow.js';
import { emitRunEvent } from './run-events.js';
import { failRun } from './run-fail.js';

/** Re-drives a stalled run gets before it fails with a stuckReason. */
export const MAX_DRIVES = 3;
/** A queued run whose flow is there starts within seconds; a minute means the flow is gone. */
const QUEUED_STALL_SEC = 60;
/** Runs a pass reads at a time; it reads page after page until none is left. */
export const SWEEP_PAGE = 100;
/** A running step silent this long (its timeout and a minute) has no worker left on it. */
const runningStallSec = (deps: Pick<Deps, 'config'>) => (deps.config.STEP_TIMEOUT_MS + 60_000) / 1000;

export interface SweepTally {
  failed: number;
  requeued: number;
}

/**
 * Runs nobody is moving any more: queued a minute with no step started (the
 * flow was never enqueued, or Redis lost it), or running with no step
 * activity for the step timeout plus a minute (an outage outlasted the jobs'
 * retries, or a worker died past BullMQ's stall handling). Each is re-driven:
 * its segment enqueued again under fresh job ids (BullMQ ignores a re-add of
 * a failed job's id; completed steps replay from Postgres without running
 * again). After MAX_DRIVES the run fails with a stuckReason and is finalized.
 * One pass takes every such run, SWEEP_PAGE at a time: after Redis lost its
 * jobs, hundreds of runs come back in one pass, not a hundred a minute.
 */
export async function sweepStuckRuns(deps: Deps): Promise<SweepTally> {
  const runningSec = runningStallSec(deps);
  const tally: SweepTally = { failed: 0, requeued: 0 };
  await eachPage(
    (after) => stalledRuns(deps.db, QUEUED_STALL_SEC, runningSec, SWEEP_PAGE, after),
    async (page) => {
      for (const run of page) await driveOrFail(deps, run, tally);
    },
  );
  return tally;
}

/**
 * Reads `read` page after page (each after the last row of the one before) and hands each page to `take`, until a
 * page comes back short. The cursor only moves forward, so a pass ends even while runs keep stalling behind it.
 */
export async function eachPage(
  read: (after?: RunCursor) => Promise<StalledRun[]>,
  take: (page: StalledRun[]) => Promise<void>,
): Promise<void> {
  let after: RunCursor | undefined;
  for (;;) {
    const page = await read(after);
    await take(page);
    const last = page.at(-1);
    if (!last || page.length < SWEEP_PAGE) return;
    after = { at: last.at, id: last.id };
  }
}

/**
 * Re-drives `run` (counted, so two passes never both drive it: only the one whose count lands does), or fails it
 * once it has had MAX_DRIVES.
 */
export async function driveOrFail(deps: Deps, run: StalledRun, tally: SweepTally): Promise<void> {
  const drive = run.drives + 1;
  if (run.drives >= MAX_DRIVES) {
    await failStalled(deps, run, drive);
    tally.failed++;
  } else if (await markRedriven(deps.db, run.id, drive)) {
    await emitRunEvent(deps, run.id, run.account_id, 'trace', {
      event: 'run.redriven',
      drive,
      status: run.status,
      segment: run.segment,
    });
    const resumed = await lastResolvedWaitpoint(deps.db, run.id);
    const fromWaitpoint = resumed && resumed.segment === run.segment - 1 ? resumed : null;
    await enqueueSegment(
      deps,
      run.id,
      run.segment,
      run.route,
      fromWaitpoint?.step_index ?? 0,
      fromWaitpoint?.id,
      drive,
    );
    tally.requeued++;
  }
}

async function failStalled(deps: Deps, run: StalledRun, drive: number) {
  const runningSec = runningStallSec(deps);
  const reason = run.running_domain
    ? `the ${run.running_domain} step stopped reporting (no heartbeat for over ${Math.round(runningSec)} s) ` +
      `and ${MAX_DRIVES} re-drives did not move it`
    : `the run made no progress after ${MAX_DRIVES} re-drives of its flow`;
  await failRun(deps, run.id, run.account_id, reason, { stepId: run.running_step ?? undefined, stuck: true });
  await enqueueFinalize(deps, run.id, run.segment, drive);
}
