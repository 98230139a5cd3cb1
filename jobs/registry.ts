import type { Job } from 'bullmq';
import type { Deps } from '../shared/deps.js';
import type { QueueName } from '../shared/queues.js';
import { processClockJob } from './clock/job.js';
import { dispatchDue } from './events/deliver.js';
import { reconcileOutbox } from './events/fanout.js';
import { processFinalize } from './orchestrator/finalize.js';
import { processStep } from './orchestrator/step-job.js';
import { DOMAIN_QUEUES } from '../shared/queues.js';

/** A queue's processor: gets the job and the process's deps; returns the job's (small) result. */
export type Processor = (job: Job, deps: Deps) => Promise<unknown>;

/**
 * Which processor serves which queue (names come from `shared/queues.ts`).
 * A queue without a processor has no worker yet; its domain arrives with a later issue.
 */
export const PROCESSORS: Partial<Record<QueueName, Processor>> = {
  ...Object.fromEntries(DOMAIN_QUEUES.map((d) => [d, processStep as Processor])),
  orchestrator: processFinalize as Processor,
  events: (_job, deps) => reconcileOutbox(deps),
  webhooks: dispatchDue,
  clock: processClockJob,
};
