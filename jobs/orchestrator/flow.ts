import type { FlowJob, JobsOptions } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import type { FinalizeJobData, StepJobData } from '../../shared/schemas/run-data.js';

export type { FinalizeJobData, StepJobData };

/** The step's row id: one per run, segment, position and domain, whichever job (or drive) runs it, so its completion is written once. */
export const stepRowId = (d: StepJobData) => `${d.runId}.${d.segment}.${d.index}.${d.domain}`;
/** Job ids are deterministic (re-adding a segment is a no-op); a clock re-drive adds `.d<n>` so BullMQ takes the jobs anew. Colons are not allowed in ids. */
export const stepJobId = (d: StepJobData) => `${stepRowId(d)}${d.drive ? `.d${d.drive}` : ''}`;
export const finalizeJobId = (runId: string, segment: number, drive?: number) => `${runId}.${segment}.finalize${drive ? `.d${drive}` : ''}`;

/**
 * Retries ride out a restart of Postgres or Redis of tens of seconds (from
 * JOB_RETRY_BASE_MS, doubling over ten attempts); a domain's own unexpected
 * errors are retried only STEP_ERROR_ATTEMPTS times (step-job.ts). A step
 * that fails for good does not hold its parent: the parent runs, sees the
 * missing step and fails the run, so finalize always writes the run's end.
 */
export const JOB_ATTEMPTS = 10;
const jobOptions = (retryBaseMs: number): JobsOptions => ({
  attempts: JOB_ATTEMPTS,
  backoff: { type: 'exponential', delay: retryBaseMs },
  removeOnComplete: { age: 3600, count: 5000 },
  removeOnFail: { age: 7 * 86400 },
  ignoreDependencyOnFailure: true,
});

/**
 * One segment of a run as a BullMQ flow: a chain with the first step as the
 * deepest child and `orchestrator.finalize` as the root, so BullMQ runs the
 * steps in route order, each on its own domain's queue, then finalizes.
 */
export function buildSegmentFlow(runId: string, segment: number, route: string[], fromIndex: number, resumeWaitpointId?: string, drive?: number, retryBaseMs = 500): FlowJob {
  const opts = jobOptions(retryBaseMs);
  let child: FlowJob | undefined;
  for (let index = fromIndex; index < route.length; index++) {
    const data: StepJobData = {
      runId, segment, index, domain: route[index]!,
      ...(index === fromIndex ? { first: true, ...(resumeWaitpointId ? { resumeWaitpointId } : {}) } : {}),
      ...(drive ? { drive } : {}),
    };
    child = { name: 'step', queueName: route[index]!, data, opts: { ...opts, jobId: stepJobId(data) }, ...(child ? { children: [child] } : {}) };
  }
  return {
    name: 'finalize',
    queueName: 'orchestrator',
    data: { runId, segment, ...(drive ? { drive } : {}) } satisfies FinalizeJobData,
    opts: { ...opts, jobId: finalizeJobId(runId, segment, drive) },
    ...(child ? { children: [child] } : {}),
  };
}

export async function enqueueSegment(deps: Pick<Deps, 'queues' | 'config'>, runId: string, segment: number, route: string[], fromIndex = 0, resumeWaitpointId?: string, drive?: number): Promise<void> {
  await deps.queues.flows().add(buildSegmentFlow(runId, segment, route, fromIndex, resumeWaitpointId, drive, deps.config.JOB_RETRY_BASE_MS));
}

/** A finalize of its own (no steps before it), for a run the sweep ended. */
export async function enqueueFinalize(deps: Pick<Deps, 'queues' | 'config'>, runId: string, segment: number, drive: number): Promise<void> {
  const data: FinalizeJobData = { runId, segment, drive };
  await deps.queues.queue('orchestrator').add('finalize', data, { ...jobOptions(deps.config.JOB_RETRY_BASE_MS), jobId: finalizeJobId(runId, segment, drive) });
}
