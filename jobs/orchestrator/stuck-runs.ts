import type { Deps } from '../../shared/deps.js';
import { lastResolvedWaitpoint, markRedriven, stalledRuns, type StalledRun } from '../../shared/db/run-writes.js';
import { enqueueFinalize, enqueueSegment } from './flow.js';
import { emitRunEvent } from './run-events.js';
import { failRun } from './run-fail.js';

/** Re-drives a stalled run gets before it fails with a stuckReason. */
export const MAX_DRIVES = 3;
/** A queued run whose flow is there starts within seconds; a minute means the flow is gone. */
const QUEUED_STALL_SEC = 60;

/**
 * Runs nobody is moving any more: queued a minute with no step started (the
 * flow was never enqueued, or Redis lost it), or running with no step
 * activity for the step timeout plus a minute (an outage outlasted the jobs'
 * retries, or a worker died past BullMQ's stall handling). Each is re-driven:
 * its segment enqueued again under fresh job ids (BullMQ ignores a re-add of
 * a failed job's id; completed steps replay from Postgres without running
 * again). After MAX_DRIVES the run fails with a stuckReason and is finalized.
 */
export async function sweepStuckRuns(deps: Deps): Promise<{ failed: number; requeued: number }> {
  const runningSec = (deps.config.STEP_TIMEOUT_MS + 60_000) / 1000;
  const stalled = await stalledRuns(deps.db, QUEUED_STALL_SEC, runningSec);
  let failed = 0;
  let requeued = 0;
  for (const run of stalled) {
    const drive = run.drives + 1;
    if (run.drives >= MAX_DRIVES) {
      await failStalled(deps, run, runningSec, drive);
      failed++;
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
      requeued++;
    }
  }
  return { failed, requeued };
}

async function failStalled(deps: Deps, run: StalledRun, runningSec: number, drive: number) {
  const reason = run.running_domain
    ? `the ${run.running_domain} step stopped reporting (no heartbeat for over ${Math.round(runningSec)} s) ` +
      `and ${MAX_DRIVES} re-drives did not move it`
    : `the run made no progress after ${MAX_DRIVES} re-drives of its flow`;
  await failRun(deps, run.id, run.account_id, reason, { stepId: run.running_step ?? undefined, stuck: true });
  await enqueueFinalize(deps, run.id, run.segment, drive);
}
