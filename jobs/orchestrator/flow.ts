import type { FlowJob, JobsOptions } from 'bullmq';
import type { Config } from '../../shared/config.js';
import type { Deps } from '../../shared/deps.js';
import type { FinalizeJobData, StepJobData } from '../../shared/schemas/run-data.js';

export type { FinalizeJobData, StepJobData };

/** Job ids are deterministic, so enqueueing the same segment twice is a no-op (colons are not allowed in ids). */
export const stepJobId = (d: StepJobData) => `${d.runId}.${d.segment}.${d.index}.${d.domain}`;
export const finalizeJobId = (runId: string, segment: number) => `${runId}.${segment}.finalize`;

/** How long finished run jobs stay in Redis (QUEUE_KEEP_COMPLETED_SECONDS, QUEUE_KEEP_FAILED_DAYS), with a count cap per queue. */
export interface JobRetention {
  removeOnComplete: { age: number; count: number };
  removeOnFail: { age: number; count: number };
}

export function jobRetention(config: Pick<Config, 'QUEUE_KEEP_COMPLETED_SECONDS' | 'QUEUE_KEEP_FAILED_DAYS'>): JobRetention {
  return {
    removeOnComplete: { age: config.QUEUE_KEEP_COMPLETED_SECONDS, count: 5000 },
    removeOnFail: { age: config.QUEUE_KEEP_FAILED_DAYS * 86400, count: 10_000 },
  };
}

const DEFAULT_RETENTION = jobRetention({ QUEUE_KEEP_COMPLETED_SECONDS: 3600, QUEUE_KEEP_FAILED_DAYS: 7 });

const STEP_OPTS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 500 },
};

/**
 * A step that fails for good fails its parent (the next step, and so on up
 * to the finalize job): without it the parents would wait in
 * `waiting-children` for ever, where no removeOnFail ever reaches them.
 */
const CHILD_OPTS: JobsOptions = { failParentOnFailure: true };

/**
 * One segment of a run as a BullMQ flow: a chain with the first step as the
 * deepest child and `orchestrator.finalize` as the root, so BullMQ runs the
 * steps in route order, each on its own domain's queue, then finalizes.
 */
export function buildSegmentFlow(runId: string, segment: number, route: string[], fromIndex: number, resumeWaitpointId?: string, keep: JobRetention = DEFAULT_RETENTION): FlowJob {
  let child: FlowJob | undefined;
  for (let index = fromIndex; index < route.length; index++) {
    const data: StepJobData = { runId, segment, index, domain: route[index]!, ...(index === fromIndex && resumeWaitpointId ? { resumeWaitpointId } : {}) };
    child = { name: 'step', queueName: route[index]!, data, opts: { ...STEP_OPTS, ...keep, ...CHILD_OPTS, jobId: stepJobId(data) }, ...(child ? { children: [child] } : {}) };
  }
  return {
    name: 'finalize',
    queueName: 'orchestrator',
    data: { runId, segment } satisfies FinalizeJobData,
    opts: { ...STEP_OPTS, ...keep, jobId: finalizeJobId(runId, segment) },
    ...(child ? { children: [child] } : {}),
  };
}

export async function enqueueSegment(deps: Pick<Deps, 'queues' | 'config'>, runId: string, segment: number, route: string[], fromIndex = 0, resumeWaitpointId?: string): Promise<void> {
  await deps.queues.flows().add(buildSegmentFlow(runId, segment, route, fromIndex, resumeWaitpointId, jobRetention(deps.config)));
}
