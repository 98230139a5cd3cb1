import { DOMAIN_NAMES, isDomain } from '../shared/domain-names.js';
import { SERVICE_QUEUES } from '../shared/queues.js';
import { processClockJob } from './clock/job.js';
import type { Processor } from './domain.js';
import { modules } from './module-registry.js';
import { processFinalize } from './orchestrator/finalize.js';
import { processStep } from './orchestrator/step-job.js';
import { stepHandler } from './steps.js';

export type { Processor };

/** Every queue: one per domain (named after it), then the service queues. */
export const QUEUE_NAMES: string[] = [...DOMAIN_NAMES, ...SERVICE_QUEUES];

/** The engine's own queues; a module's own (bridge actions, webhook deliveries) come from its `queues`. */
const ENGINE_PROCESSORS: Record<string, Processor> = {
  orchestrator: processFinalize as Processor,
  clock: processClockJob,
};

/**
 * Which processor serves a queue: every domain queue runs the generic step
 * job (which calls the domain's step); worker processes start a worker only
 * for domains that have a step (see `hasProcessor`).
 */
export function processorOf(queue: string): Processor | undefined {
  if (isDomain(queue)) return processStep as Processor;
  return ENGINE_PROCESSORS[queue] ?? modules().processors[queue];
}

/** A service queue has its processor; a domain queue once its module (or a test) provides a step. */
export function hasProcessor(queue: string): boolean {
  return Boolean(processorOf(queue)) && (!isDomain(queue) || Boolean(stepHandler(queue)));
}
