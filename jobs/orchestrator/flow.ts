import type { JobsOptions } from 'bullmq';
import type { Config } from '../../shared/config.js';
import type { Deps } from '../../shared/deps.js';
import type { FinalizeJobData, StepJobData } from '../../shared/schemas/run-data.js';
import { currentTraceparent, inSpan, SpanKind } from '../../shared/telemetry/spans.js';

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
export const stepJobId = (d: StepJobData) => `${stepRowId(d)}${d.drive ? `.d${d.drive}` : ''}`;
export const finalizeJobId = (runId: string, segment: number, drive?: number) =>
  `${runId}.${segment}.finalize${drive ? `.d${drive}` : ''}`;

/**
 * Retries ride out a restart of Postgres or Redis of tens of seconds (from
 * JOB_RETRY_BASE_MS, doubling over ten attempts); a domain's own unexpected
 * errors are retried only STEP_ERROR_ATTEMPTS times (step-job.ts). A step
 * job that fails for good leaves its run to the stuck-run sweep, which
 * drives the segment again or fails the run.
 */
const JOB_ATTEMPTS = 10;

/** What run jobs need from the config: their retry base and how long finished jobs stay in Redis. */
export type JobConfig = Pick<Config, 'JOB_RETRY_BASE_MS' | 'QUEUE_KEEP_COMPLETED_SECONDS' | 'QUEUE_KEEP_FAILED_DAYS'>;

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
});

/**
 * Starts a segment: one job for its first step, on that domain's queue. The
 * job runs the steps that follow where this process serves their domains and
 * hands the run on otherwise (step-job.ts), so a segment costs one job when
 * one process serves its domains, rather than a job and a flow dependency per
 * step.
 */
export async function enqueueSegment(
  deps: Pick<Deps, 'queues' | 'config'>,
  runId: string,
  segment: number,
  route: string[],
  fromIndex = 0,
  resumeWaitpointId?: string,
  drive?: number,
): Promise<void> {
  await enqueueStep(deps, segmentStart(runId, segment, route, fromIndex, resumeWaitpointId, drive));
}

/** The job data of a segment's first step. */
export function segmentStart(
  runId: string,
  segment: number,
  route: string[],
  fromIndex: number,
  resumeWaitpointId?: string,
  drive?: number,
): StepJobData {
  if (fromIndex >= route.length) throw new Error(`segment ${segment} of run ${runId} has no step from ${fromIndex} on`);
  return {
    runId,
    segment,
    index: fromIndex,
    domain: route[fromIndex]!,
    first: true,
    ...(resumeWaitpointId ? { resumeWaitpointId } : {}),
    ...(drive ? { drive } : {}),
  };
}

/**
 * One step's job on its domain's queue, under its deterministic id: a second add (a retried hand-off, two drivers)
 * is a no-op while the first is kept.
 */
export async function enqueueStep(deps: Pick<Deps, 'queues' | 'config'>, data: StepJobData): Promise<void> {
  const queue = deps.queues.queueFor(data.domain, data.runId);
  const jobId = stepJobId(data);
  await traceEnqueue(queue.name, jobId, { runId: data.runId, domain: data.domain }, () =>
    queue.add('step', withTraceparent(data), { ...jobOptions(deps.config), jobId }),
  );
}

/**
 * The enqueue as a producer span (the BullMQ add and its Redis script below it), whose `traceparent` goes into the
 * job data: the job's consumer span, in whichever worker process, is its child (workers/domains.ts).
 */
function traceEnqueue(
  queue: string,
  jobId: string,
  run: { runId: string; domain?: string },
  add: () => Promise<unknown>,
): Promise<unknown> {
  return inSpan(
    `send ${queue}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'bullmq',
        'messaging.operation.type': 'send',
        'messaging.destination.name': queue,
        'messaging.message.id': jobId,
        'awp.run.id': run.runId,
        ...(run.domain ? { 'awp.step.domain': run.domain } : {}),
      },
    },
    add,
  );
}

/** The job data with the active span's `traceparent` (the enqueue span's), when tracing runs. */
function withTraceparent<T extends { traceparent?: string }>(data: T): T {
  const traceparent = currentTraceparent();
  return traceparent ? { ...data, traceparent } : data;
}

/** A finalize of its own (no steps before it), for a run the sweep ended. */
export async function enqueueFinalize(
  deps: Pick<Deps, 'queues' | 'config'>,
  runId: string,
  segment: number,
  drive: number,
): Promise<void> {
  const data: FinalizeJobData = { runId, segment, drive };
  const queue = deps.queues.queue('orchestrator');
  const jobId = finalizeJobId(runId, segment, drive);
  await traceEnqueue(queue.name, jobId, { runId }, () =>
    queue.add('finalize', withTraceparent(data), { ...jobOptions(deps.config), jobId }),
  );
}

/**
 * The run is committed in Postgres before its flow is enqueued. If Redis
 * cannot take the flow now, the run stays `queued` and the clock's stuck-run
 * sweep enqueues it (same deterministic job ids) within a minute: the client
 * still gets its runId, and nothing is lost.
 */
export async function enqueueOrLeaveToSweep(
  deps: Pick<Deps, 'log'>,
  runId: string,
  enqueue: () => Promise<void>,
): Promise<void> {
  try {
    await enqueue();
  } catch (err) {
    deps.log.warn({ runId, err: (err as Error).message }, 'flow not enqueued; the stuck-run sweep will enqueue it');
  }
}
