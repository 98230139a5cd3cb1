import type { FlowJob, JobsOptions } from 'bullmq';
import type { Config } from '../../shared/config.js';
import type { Deps } from '../../shared/deps.js';
import type { FinalizeJobData, StepJobData } from '../../shared/schemas/run-data.js';

export type { FinalizeJobData, StepJobData };

/**
 * The step's row id: one per run, segment, position and domain, whichever job (or drive) runs it, so its completion is
 * written once.
 */
export const stepRowId = (d: StepJobData) => `${d.runId}.${d.segment}.${d.index}.${d.domain}`;
/**
 * Job ids are deterministic (re-adding a segment is a no-op); a clock re-drive adds `.d<n>` so BullMQ takes the jobs
 * anew. Colons are not allowed in ids.
 */
const stepJobId = (d: StepJobData) => `${stepRowId(d)}${d.drive ? `.d${d.drive}` : ''}`;
export const finalizeJobId = (runId: string, segment: number, drive?: number) =>
  `${runId}.${segment}.finalize${drive ? `.d${drive}` : ''}`;

/**
 * Retries ride out a restart of Postgres or Redis of tens of seconds (from
 * JOB_RETRY_BASE_MS, doubling over ten attempts); a domain's own unexpected
 * errors are retried only STEP_ERROR_ATTEMPTS times (step-job.ts). A step
 * that fails for good does not hold its parent: the parent runs, sees the
 * missing step and fails the run, and the root (the last step) writes the
 * run's end.
 */
const JOB_ATTEMPTS = 10;

/** What run jobs need from the config: their retry base and how long finished jobs stay in Redis. */
export type JobConfig = Pick<Config, 'JOB_RETRY_BASE_MS' | 'QUEUE_KEEP_COMPLETED_SECONDS' | 'QUEUE_KEEP_FAILED_DAYS'>;
const DEFAULT_JOB_CONFIG: JobConfig = {
  JOB_RETRY_BASE_MS: 500,
  QUEUE_KEEP_COMPLETED_SECONDS: 3600,
  QUEUE_KEEP_FAILED_DAYS: 7,
};

/**
 * Finished run jobs leave Redis after QUEUE_KEEP_COMPLETED_SECONDS / QUEUE_KEEP_FAILED_DAYS, with a count cap per
 * queue.
 */
function jobRetention(config: Pick<Config, 'QUEUE_KEEP_COMPLETED_SECONDS' | 'QUEUE_KEEP_FAILED_DAYS'>) {
  return {
    removeOnComplete: { age: config.QUEUE_KEEP_COMPLETED_SECONDS, count: 5000 },
    removeOnFail: { age: config.QUEUE_KEEP_FAILED_DAYS * 86400, count: 10_000 },
  };
}

const jobOptions = (config: JobConfig): JobsOptions => ({
  attempts: JOB_ATTEMPTS,
  backoff: { type: 'exponential', delay: config.JOB_RETRY_BASE_MS },
  ...jobRetention(config),
  ignoreDependencyOnFailure: true,
});

/**
 * One segment of a run as a BullMQ flow: a chain with the first step as the
 * deepest child and the last step as the root, so BullMQ runs the steps in
 * route order, each on its own domain's queue; the last one finalizes the
 * segment (no job of its own for that: one hop and one job fewer per run).
 */
export function buildSegmentFlow(
  runId: string,
  segment: number,
  route: string[],
  fromIndex: number,
  resumeWaitpointId?: string,
  drive?: number,
  config: JobConfig = DEFAULT_JOB_CONFIG,
): FlowJob {
  const opts = jobOptions(config);
  if (fromIndex >= route.length) throw new Error(`segment ${segment} of run ${runId} has no step from ${fromIndex} on`);
  let child: FlowJob | undefined;
  for (let index = fromIndex; index < route.length; index++) {
    const data: StepJobData = {
      runId,
      segment,
      index,
      domain: route[index]!,
      ...(index === fromIndex ? { first: true, ...(resumeWaitpointId ? { resumeWaitpointId } : {}) } : {}),
      ...(index === route.length - 1 ? { finalizes: true } : {}),
      ...(drive ? { drive } : {}),
    };
    child = {
      name: 'step',
      queueName: route[index]!,
      data,
      opts: { ...opts, jobId: stepJobId(data) },
      ...(child ? { children: [child] } : {}),
    };
  }
  return child!;
}

export async function enqueueSegment(
  deps: Pick<Deps, 'queues' | 'config'>,
  runId: string,
  segment: number,
  route: string[],
  fromIndex = 0,
  resumeWaitpointId?: string,
  drive?: number,
): Promise<void> {
  await deps.queues
    .flows()
    .add(buildSegmentFlow(runId, segment, route, fromIndex, resumeWaitpointId, drive, deps.config));
}

/** A finalize of its own (no steps before it), for a run the sweep ended. */
export async function enqueueFinalize(
  deps: Pick<Deps, 'queues' | 'config'>,
  runId: string,
  segment: number,
  drive: number,
): Promise<void> {
  const data: FinalizeJobData = { runId, segment, drive };
  await deps.queues
    .queue('orchestrator')
    .add('finalize', data, { ...jobOptions(deps.config), jobId: finalizeJobId(runId, segment, drive) });
}
