import type { Job } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import { loadSegmentEnd, writeSegmentEnd } from '../../shared/db/segment-ends.js';
import { setConversationContext } from '../../shared/db/conversations.js';
import { FinalizeJobData } from '../../shared/schemas/run-data.js';
import { readJob } from './read-job.js';
import { FINAL_OUTCOMES } from './run-state.js';
import { planSegmentEnd } from './segment-end.js';
import { announce } from './run-events.js';
import { runsFinished } from '../metrics.js';
import { domainModule, engineHooks } from '../module-registry.js';
import { admitDue } from './admission.js';

/** What the domains of a route do in the transaction that ends the run (pay: seal its proof pack). */
const runEndHooks = (route: string[]) => [...new Set(route)].flatMap((d) => domainModule(d)?.onRunFinished ?? []);

/**
 * Reads a finalizer may take when the run keeps moving under it (cancel, resume, events) before it gives the job back
 * to BullMQ's retries.
 */
const MAX_READS = 5;

/**
 * Ends a run's segment `segment` (or its current one): decides where the run
 * rests, builds the proof card and the response, and writes the run, the
 * task, the outbox event and the `final` event at once. Optimistic: one read,
 * then one write that applies only if the run has not moved since; a run that
 * moved is read again. Idempotent: a segment that has its `final` is left alone.
 */
export async function finalizeSegment(
  deps: Deps,
  runId: string,
  segment?: number,
): Promise<{ status: string } | { skipped: true }> {
  for (let read = 0; read < MAX_READS; read++) {
    const state = await loadSegmentEnd(deps.db, runId);
    // A resume moved the run to a newer segment, or this segment already ended: nothing of this finalizer may land.
    if (!state || state.finalized || (segment !== undefined && state.run.segment !== segment)) return { skipped: true };
    const plan = planSegmentEnd(state);
    const { run } = state;
    const { conversation_id: conversationId, task_id: taskId } = run;
    const finishers = plan.finished ? runEndHooks(run.route) : [];
    const written =
      conversationId || taskId || finishers.length > 0
        ? await deps.db.transaction(async (trx) => {
            const w = await writeSegmentEnd(trx, plan);
            if (!w) return null;
            for (const finish of finishers)
              await finish(trx, deps, { runId, accountId: run.account_id, status: plan.status });
            if (conversationId) {
              await setConversationContext(trx, run.account_id, conversationId, {
                route: run.route,
                status: plan.status,
                waiting: state.waitpoint?.kind ?? null,
                lastRunId: runId,
              });
            }
            // Tasks know the core statuses; a domain's final status counts as the success or failure it declares.
            const outcome = FINAL_OUTCOMES[plan.status];
            const taskStatus = outcome === 'succeeded' ? 'ready' : outcome === 'failed' ? 'failed' : plan.status;
            const results = (plan.results as { results?: unknown }).results;
            const moved = taskId
              ? await engineHooks().taskRunReached(trx, run.account_id, taskId, taskStatus, { runId, results })
              : 0;
            return { ...w, deliveries: w.deliveries + moved };
          })
        : await writeSegmentEnd(deps.db, plan);
    if (!written) continue;
    const published = plan.events.map((e, i) => ({
      id: written.events[i]!.seq,
      runId,
      type: e.type,
      at: written.events[i]!.created_at.toISOString(),
      ...e.data,
    }));
    announce(deps, runId, published, run.account_id);
    if (plan.finished)
      for (const domain of new Set(run.route))
        runsFinished.inc({ outcome: FINAL_OUTCOMES[plan.status] ?? plan.status, domain });
    if (written.deliveries > 0) await engineHooks().wakeDeliveries(deps);
    // The run's place among its account's runs in flight freed with this write: a held run of the account may start.
    await admitDue(deps, run.account_id);
    return { status: plan.status };
  }
  throw new Error(`run ${runId} kept moving while it was finalized; retrying`);
}

/** The `orchestrator.finalize` job: a finalize of its own, for a run the stuck-run sweep ended. */
export async function processFinalize(job: Job<FinalizeJobData>, deps: Deps): Promise<unknown> {
  const { runId, segment } = readJob(FinalizeJobData, job.data, 'finalize job data');
  return finalizeSegment(deps, runId, segment);
}

/** A canceled run that was resting at a waitpoint has no flow to finalize it; this writes its final state. */
export async function finalizeCanceled(deps: Deps, runId: string): Promise<void> {
  await finalizeSegment(deps, runId);
}
