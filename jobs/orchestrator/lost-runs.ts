import type { Deps } from '../../shared/deps.js';
import { quietRuns, type StalledRun } from '../../shared/db/run-writes.js';
import { stepJobId } from './flow.js';
import { driveOrFail, eachPage, SWEEP_PAGE, sweepStuckRuns, type SweepTally } from './stuck-runs.js';

/**
 * How long a run must have been quiet before a missing job means Redis lost
 * it. Its jobs are enqueued milliseconds after the Postgres write that
 * precedes them (a submission, a hand-off), so a run quiet this long with no
 * job in Redis has none coming.
 */
export const LOST_QUIET_SEC = 5;

/**
 * The pass run after Redis came back (workers/clock.ts asks for it): the
 * stuck-run sweep, then every run quiet for LOST_QUIET_SEC, with no step
 * running, none of whose jobs is still in Redis. Those lost their flow with
 * Redis (restarted empty, failed over to a replica that lacked it) and are
 * re-driven now, not after the sweep's minute or the step timeout. A run
 * with a job still waiting, delayed or active is left alone, so it is never
 * driven twice; a run with a step `running` too (its worker may still be on
 * it; the stuck-run sweep decides once its heartbeat stops). Completed steps
 * replay from Postgres as in any re-drive.
 */
export async function sweepLostRuns(deps: Deps): Promise<SweepTally & { lost: number }> {
  const stuck = await sweepStuckRuns(deps);
  const lost: SweepTally = { failed: 0, requeued: 0 };
  await eachPage(
    (after) => quietRuns(deps.db, LOST_QUIET_SEC, SWEEP_PAGE, after),
    async (page) => {
      const live = await Promise.all(page.map((run) => hasLiveJob(deps, run)));
      for (const [i, run] of page.entries()) if (!live[i]) await driveOrFail(deps, run, lost);
    },
  );
  return { failed: stuck.failed + lost.failed, requeued: stuck.requeued + lost.requeued, lost: lost.requeued };
}

/**
 * Whether Redis still holds an unfinished job that moves `run`: any step of
 * its segment under any drive it has had (the ids are deterministic,
 * flow.ts), waiting, delayed or active. A job's hash exists until it is
 * removed, and has `finishedOn` once it completed or failed for good.
 */
export async function hasLiveJob(deps: Pick<Deps, 'queues' | 'redis'>, run: StalledRun): Promise<boolean> {
  const keys = run.route.flatMap((domain, index) => {
    const queue = deps.queues.queueFor(domain, run.id);
    return Array.from({ length: run.drives + 1 }, (_, drive) =>
      queue.toKey(stepJobId({ runId: run.id, segment: run.segment, index, domain, ...(drive ? { drive } : {}) })),
    );
  });
  const found = await Promise.all(keys.map((key) => deps.redis.hmget(key, 'timestamp', 'finishedOn')));
  return found.some(([timestamp, finishedOn]) => timestamp !== null && finishedOn === null);
}
