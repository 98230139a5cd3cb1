import type { Job } from 'bullmq';
import type { Deps } from '../shared/deps.js';
import { BRIDGE_ACTIONS_QUEUE, SERVICE_QUEUES } from '../shared/queues.js';
import { processBridgeAction } from './bridge/action-worker.js';
import { processClockJob } from './clock/job.js';
import { DOMAINS, isDomain } from './domains.js';
import { stepHandler } from './steps.js';
import { dispatchDue } from './events/deliver.js';
import { reconcileOutbox } from './events/fanout.js';
import { processFinalize } from './orchestrator/finalize.js';
import { processStep } from './orchestrator/step-job.js';

/** A queue's processor: gets the job and the process's deps; returns the job's (small) result. */
export type Processor = (job: Job, deps: Deps) => Promise<unknown>;

/** Every queue: one per domain (named after it), then the service queues. */
export const QUEUE_NAMES: string[] = [...DOMAINS.map((d) => d.name), ...SERVICE_QUEUES];

/**
 * Which processor serves which queue: every domain queue runs the generic
 * step job (which calls the domain's step); worker processes start a worker
 * only for domains that have a step (see `hasProcessor`).
 */
export const PROCESSORS: Record<string, Processor> = {
  ...Object.fromEntries(DOMAINS.map((d) => [d.name, processStep as Processor])),
  orchestrator: processFinalize as Processor,
  events: (_job, deps) => reconcileOutbox(deps),
  webhooks: dispatchDue,
  clock: processClockJob,
  [BRIDGE_ACTIONS_QUEUE]: processBridgeAction,
};

/** A service queue always has its processor; a domain queue once its module (or a test) provides a step. */
export function hasProcessor(queue: string): boolean {
  return Boolean(PROCESSORS[queue]) && (!isDomain(queue) || Boolean(stepHandler(queue)));
}
