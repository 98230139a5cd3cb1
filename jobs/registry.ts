import type { Job } from 'bullmq';
import type { Deps } from '../shared/deps.js';
import type { QueueName } from '../shared/queues.js';
import { processClockJob } from './clock/job.js';

/** A queue's processor: gets the job and the process's deps; returns the job's (small) result. */
export type Processor = (job: Job, deps: Deps) => Promise<unknown>;

/**
 * Which processor serves which queue (names come from `shared/queues.ts`).
 * A queue without a processor has no worker yet; its domain arrives with a later issue.
 */
export const PROCESSORS: Partial<Record<QueueName, Processor>> = {
  clock: processClockJob,
};
