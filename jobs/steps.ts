import type { DomainName } from '../shared/queues.js';
import { huntStep } from './hunt/step.js';
import { resolveStep } from './resolve/step.js';
import type { StepHandler } from './step.js';

/**
 * Domain → step handler. A domain missing here is not available yet: the
 * orchestrator refuses routes through it with an error naming it.
 */
const HANDLERS: Partial<Record<DomainName, StepHandler>> = {
  hunt: huntStep,
  resolve: resolveStep,
};

export function stepHandler(domain: string): StepHandler | undefined {
  return HANDLERS[domain as DomainName];
}

export function availableDomains(): DomainName[] {
  return Object.keys(HANDLERS) as DomainName[];
}

/**
 * Registers a handler at run time. Tests use it for instrumented steps (slow,
 * cancellable) that exercise the engine; production code registers statically above.
 */
export function registerStepHandler(domain: DomainName, handler: StepHandler): () => void {
  const previous = HANDLERS[domain];
  HANDLERS[domain] = handler;
  return () => {
    if (previous) HANDLERS[domain] = previous;
    else delete HANDLERS[domain];
  };
}
