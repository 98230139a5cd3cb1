import type { Job } from 'bullmq';
import type { Deps } from '../shared/deps.js';
import { SERVICE_QUEUES } from '../shared/queues.js';
import { processClockJob } from './clock/job.js';
import { DOMAINS } from './domains.js';
import { dispatchDue } from './events/deliver.js';
import { reconcileOutbox } from './events/fanout.js';
import { processFinalize } from './orchestrator/finalize.js';
import { processStep } from './orchestrator/step-job.js';

/** A queue's processor: gets the job and the process's deps; returns the job's (small) result. */
export type Processor = (job: Job, deps: Deps) => Promise<unknown>;

/** Every queue: one per domain (named after it), then the service queues. */
export const QUEUE_NAMES: string[] = [...DOMAINS.map((d) => d.name), ...SERVICE_QUEUES];

/**
 * Which processor serves which queue. A domain queue has one once its module
 * has a step; until then no worker starts for it.
 */
export const PROCESSORS: Record<string, Processor> = {
  ...Object.fromEntries(DOMAINS.filter((d) => d.step).map((d) => [d.name, processStep as Processor])),
  orchestrator: processFinalize as Processor,
  events: (_job, deps) => reconcileOutbox(deps),
  webhooks: dispatchDue,
  clock: processClockJob,
};
