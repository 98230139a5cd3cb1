import { DOMAINS, domainModule } from './domains.js';
import type { StepHandler } from './step.js';

/** Handlers put in place by tests (slow or cancellable steps that exercise the engine); production uses the modules' own. */
const overrides = new Map<string, StepHandler>();

/** The step of a domain, or undefined when its module is not built yet (the orchestrator refuses routes through it). */
export function stepHandler(domain: string): StepHandler | undefined {
  return overrides.get(domain) ?? domainModule(domain)?.step;
}

export function availableDomains(): string[] {
  return DOMAINS.filter((d) => stepHandler(d.name)).map((d) => d.name);
}

/** Replaces a domain's step until the returned function is called. */
export function registerStepHandler(domain: string, handler: StepHandler): () => void {
  overrides.set(domain, handler);
  return () => void overrides.delete(domain);
}
