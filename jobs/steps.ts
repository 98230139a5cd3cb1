import { domainModule, modules } from './module-registry.js';
import type { StepHandler } from './step.js';

/**
 * Handlers put in place by tests (slow or cancellable steps that exercise the engine); production uses the modules'
 * own.
 */
const overrides = new Map<string, StepHandler>();

/** The step of a domain, or undefined when its module is not built yet (the orchestrator refuses routes through it). */
export function stepHandler(domain: string): StepHandler | undefined {
  return overrides.get(domain) ?? domainModule(domain)?.step;
}

export function availableDomains(): string[] {
  return modules()
    .domains.map((d) => d.name)
    .filter((d) => stepHandler(d));
}

/** Replaces a domain's step until the returned function is called. */
export function registerStepHandler(domain: string, handler: StepHandler): () => void {
  overrides.set(domain, handler);
  return () => void overrides.delete(domain);
}
