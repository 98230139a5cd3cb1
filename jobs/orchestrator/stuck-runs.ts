import type { Deps } from '../../shared/deps.js';
import { enqueueSegment, finalizeJobId, jobRetention } from './flow.js';
import { failRun } from './run-control.js';
import { lastResolvedWaitpoint, lostQueuedRuns, staleRunningSteps } from '../../shared/db/run-writes.js';

/**
 * Runs nobody is moving any more. A running step whose heartbeat is older
 * than the step timeout plus a margin means its worker died past BullMQ's
 * retries: the run fails with a stuckReason and its finalize is enqueued.
 * A run still `queued` a minute after creation lost its flow (Redis was
 * down at submit, or lost data): its segment is re-enqueued, which is a
 * no-op when the flow is in fact there (deterministic job ids).
 */
export async function sweepStuckRuns(deps: Deps): Promise<{ failed: number; requeued: number }> {
  const marginMs = deps.config.STEP_TIMEOUT_MS + 60_000;
  const stale = await staleRunningSteps(deps.db, marginMs / 1000);
  for (const run of stale) {
    const reason = `the ${run.domain} step stopped reporting (no heartbeat for over ${Math.round(marginMs / 1000)} s); its worker is gone`;
    await failRun(deps, run.id, run.account_id, reason, { stepId: run.step_id, stuck: true });
    await deps.queues.queue('orchestrator').add('finalize', { runId: run.id, segment: run.segment }, { jobId: `${finalizeJobId(run.id, run.segment)}.sweep`, ...jobRetention(deps.config) });
  }
  const lost = await lostQueuedRuns(deps.db);
  for (const run of lost) {
    const first = await lastResolvedWaitpoint(deps.db, run.id);
    const resumed = first && first.segment === run.segment - 1;
    await enqueueSegment(deps, run.id, run.segment, run.route, resumed ? first.step_index : 0, resumed ? first.id : undefined);
  }
  return { failed: stale.length, requeued: lost.length };
}
