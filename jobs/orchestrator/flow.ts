import type { FlowJob, JobsOptions } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import type { FinalizeJobData, StepJobData } from '../../shared/schemas/run-data.js';

export type { FinalizeJobData, StepJobData };

/** Job ids are deterministic, so enqueueing the same segment twice is a no-op (colons are not allowed in ids). */
export const stepJobId = (d: StepJobData) => `${d.runId}.${d.segment}.${d.index}.${d.domain}`;
export const finalizeJobId = (runId: string, segment: number) => `${runId}.${segment}.finalize`;

const STEP_OPTS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: { age: 3600, count: 5000 },
  removeOnFail: { age: 7 * 86400 },
};

/**
 * One segment of a run as a BullMQ flow: a chain with the first step as the
 * deepest child and `orchestrator.finalize` as the root, so BullMQ runs the
 * steps in route order, each on its own domain's queue, then finalizes.
 */
export function buildSegmentFlow(runId: string, segment: number, route: string[], fromIndex: number, resumeWaitpointId?: string): FlowJob {
  let child: FlowJob | undefined;
  for (let index = fromIndex; index < route.length; index++) {
    const data: StepJobData = { runId, segment, index, domain: route[index]!, ...(index === fromIndex && resumeWaitpointId ? { resumeWaitpointId } : {}) };
    child = { name: 'step', queueName: route[index]!, data, opts: { ...STEP_OPTS, jobId: stepJobId(data) }, ...(child ? { children: [child] } : {}) };
  }
  return {
    name: 'finalize',
    queueName: 'orchestrator',
    data: { runId, segment } satisfies FinalizeJobData,
    opts: { ...STEP_OPTS, jobId: finalizeJobId(runId, segment) },
    ...(child ? { children: [child] } : {}),
  };
}

export async function enqueueSegment(deps: Pick<Deps, 'queues'>, runId: string, segment: number, route: string[], fromIndex = 0, resumeWaitpointId?: string): Promise<void> {
  await deps.queues.flows().add(buildSegmentFlow(runId, segment, route, fromIndex, resumeWaitpointId));
}
