import { DOMAIN_NAMES, DOMAIN_STATUSES, RESUME_ACTIONS } from '../shared/domain-names.js';
import type { AnyRoute } from '../shared/http/route-spec.js';
import type { DomainEvent, DomainModule, DomainSweep, Processor, WorkflowTemplate } from './domain.js';
import { ENGINE_HOOKS, type EngineHooks } from './engine-hooks.js';

export type { Processor };

/** An area of the service beside the domains: its name, the routes it answers, what else it brings to the engine. */
export interface ServiceModule {
  name: string;
  routes: readonly AnyRoute[];
  /** Outbox event types it writes (signals and schedules: jobs/automation/events.ts). */
  events?: Record<string, DomainEvent>;
  /** Its periodic jobs (the delivery ledger's sweeps), run by the clock beside the engine's own. */
  sweeps?: Record<string, DomainSweep>;
  /** Queues it serves itself (the webhook dispatcher), by queue name; the name must be in shared/queues.ts. */
  queues?: Record<string, Processor>;
  /** The engine hooks it provides (jobs/engine-hooks.ts): each is provided by exactly one module. */
  provides?: Partial<EngineHooks>;
}

/**
 * Everything the engine reads about the modules, derived once from the two
 * lists (jobs/domains.ts, jobs/modules.ts) by `buildModuleRegistry`. The
 * entry points hand it over with `useModules`; the engine imports no module.
 */
export interface ModuleRegistry {
  domains: readonly DomainModule[];
  services: readonly ServiceModule[];
  /**
   * Domain routes stamped with their domain (a route without a handler answers 501 naming its issue), then the
   * services'.
   */
  routes: AnyRoute[];
  templates: WorkflowTemplate[];
  /** The modules' sweeps by name (`proxy.expire`), run by the clock beside the engine's own. */
  sweeps: Record<string, DomainSweep>;
  /** What the engine asks of the service modules (audit, approvals, tasks, the dispatcher), one provider each. */
  hooks: EngineHooks;
  /** Modules that declare outbox event types: the domains, then the services. */
  eventSources: ReadonlyArray<Pick<DomainModule, 'name' | 'events'>>;
  /** Queues a module serves itself (bridge actions, webhook deliveries), by queue name. */
  processors: Record<string, Processor>;
  domain(name: string): DomainModule | undefined;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Where the module list and the constant vocabulary (shared/domain-names.ts) disagree; [] when they agree. */
export function vocabularyDrift(domains: readonly DomainModule[]): string[] {
  const names = domains.map((d) => d.name);
  const actions = [...new Set(domains.flatMap((d) => Object.keys(d.resumeActions ?? {})))];
  const resting = domains.flatMap((d) => d.statuses?.resting ?? []);
  const final = Object.fromEntries(domains.flatMap((d) => Object.entries(d.statuses?.final ?? {})));
  const drift: string[] = [];
  if (!sameList(names, DOMAIN_NAMES)) drift.push(`domain names ${names.join(',')} != ${DOMAIN_NAMES.join(',')}`);
  if (!sameList(actions, RESUME_ACTIONS))
    drift.push(`resume actions ${actions.join(',')} != ${RESUME_ACTIONS.join(',')}`);
  if (!sameList(resting, DOMAIN_STATUSES.resting))
    drift.push(`resting statuses ${resting.join(',')} != ${DOMAIN_STATUSES.resting.join(',')}`);
  if (JSON.stringify(final) !== JSON.stringify(DOMAIN_STATUSES.final))
    drift.push(`final statuses ${JSON.stringify(final)} != ${JSON.stringify(DOMAIN_STATUSES.final)}`);
  return drift;
}

/** The hooks the services provide; throws naming a hook nobody or two modules provide. */
function collectHooks(services: readonly ServiceModule[]): EngineHooks {
  const hooks: Partial<Record<keyof EngineHooks, unknown>> = {};
  const providers: Partial<Record<keyof EngineHooks, string>> = {};
  for (const s of services)
    for (const [name, hook] of Object.entries(s.provides ?? {}) as Array<[keyof EngineHooks, unknown]>) {
      if (providers[name]) throw new Error(`Engine hook ${name} is provided by both ${providers[name]} and ${s.name}`);
      providers[name] = s.name;
      hooks[name] = hook;
    }
  const missing = ENGINE_HOOKS.filter((name) => !hooks[name]);
  if (missing.length > 0) throw new Error(`No module provides the engine hooks ${missing.join(', ')}`);
  return hooks as EngineHooks;
}

export function buildModuleRegistry(
  domains: readonly DomainModule[],
  services: readonly ServiceModule[],
): ModuleRegistry {
  const drift = vocabularyDrift(domains);
  if (drift.length > 0) throw new Error(`shared/domain-names.ts does not match the module list: ${drift.join('; ')}`);
  const byName = new Map(domains.map((d) => [d.name, d]));
  const domainRoutes = domains.flatMap((d) =>
    d.routes.map((route) => ({
      ...route,
      domain: route.domain ?? d.name,
      ...(route.handler ? {} : { pendingIssue: route.pendingIssue ?? d.pendingIssue }),
    })),
  );
  return {
    domains,
    services,
    routes: [...services.flatMap((s) => s.routes), ...domainRoutes],
    templates: domains.flatMap((d) => d.templates ?? []),
    sweeps: Object.fromEntries([...domains, ...services].flatMap((m) => Object.entries(m.sweeps ?? {}))),
    hooks: collectHooks(services),
    eventSources: [...domains, ...services],
    processors: Object.assign({}, ...[...domains, ...services].map((m) => m.queues ?? {})),
    domain: (name) => byName.get(name),
  };
}

/** The registry the entry point handed over (one per process). */
let handed: ModuleRegistry | undefined;

const namesOf = (r: ModuleRegistry) => [...r.domains, ...r.services].map((m) => m.name).join(',');

/**
 * Hands the engine its modules, once per process (the API, each worker
 * process, the test harness). Handing them again is harmless: the first
 * registry stays. Different modules are a wiring mistake and throw.
 */
export function useModules(registry: ModuleRegistry): void {
  const current = handed;
  if (!current) handed = registry;
  else if (current !== registry && namesOf(current) !== namesOf(registry))
    throw new Error(`useModules was handed other modules (${namesOf(registry)}) than before (${namesOf(current)})`);
}

/** The registry the entry point handed over; throws when none did, so a missing call fails at its first use. */
export function modules(): ModuleRegistry {
  const current = handed;
  if (!current)
    throw new Error(
      'The engine has no modules: the entry point must call useModules(MODULES) from jobs/modules.ts first',
    );
  return current;
}

/** What the engine asks of the modules (jobs/engine-hooks.ts), through the registry the entry point handed over. */
export function engineHooks(): EngineHooks {
  return modules().hooks;
}

/** The module of a domain, or undefined for a name that is none. */
export function domainModule(name: string): DomainModule | undefined {
  return modules().domain(name);
}

/** A value derived from the registry, computed on first use and kept (the registry never changes within a process). */
export function fromModules<T>(derive: (registry: ModuleRegistry) => T): () => T {
  let cached: { registry: ModuleRegistry; value: T } | undefined;
  return () => {
    const registry = modules();
    if (cached?.registry !== registry) cached = { registry, value: derive(registry) };
    return cached.value;
  };
}
