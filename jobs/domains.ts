import type { AnyRoute } from '../shared/http/route-spec.js';
import { bridge } from './bridge/index.js';
import { cicd } from './cicd/index.js';
import { delivery } from './delivery/index.js';
import type { DomainModule } from './domain.js';
import { environment } from './environment/index.js';
import { hunt } from './hunt/index.js';
import { incident } from './incident/index.js';
import { kubernetes } from './kubernetes/index.js';
import { migration } from './migration/index.js';
import { pay } from './pay/index.js';
import { proxy } from './proxy/index.js';
import { resolve } from './resolve/index.js';
import { security } from './security/index.js';

/**
 * The one list of domains. The queue and step registries, the router, the
 * manifest, the route table, the task domain enum, the run statuses, the
 * event registry and proof redaction all read it; adding a domain is a folder
 * and a line here.
 */
export const DOMAINS = [hunt, resolve, bridge, proxy, pay, environment, cicd, kubernetes, incident, migration, security, delivery] as const;

export type DomainName = (typeof DOMAINS)[number]['name'];
export const DOMAIN_NAMES: DomainName[] = DOMAINS.map((d) => d.name);

const BY_NAME = new Map<string, DomainModule>(DOMAINS.map((d) => [d.name, d]));

export function isDomain(name: string): name is DomainName {
  return BY_NAME.has(name);
}

export function domainModule(name: string): DomainModule | undefined {
  return BY_NAME.get(name);
}

/**
 * Every domain's routes, stamped with their domain; a route without a handler
 * answers 501 naming the issue that builds it (its own, else its module's).
 */
export const DOMAIN_ROUTES: AnyRoute[] = DOMAINS.flatMap((d: DomainModule) =>
  d.routes.map((route) => ({ ...route, domain: route.domain ?? d.name, ...(route.handler ? {} : { pendingIssue: route.pendingIssue ?? d.pendingIssue }) })),
);

/** Actions a waitpoint of any domain accepts, for the request schemas' enum. */
export const RESUME_ACTIONS: string[] = [...new Set(DOMAINS.flatMap((d: DomainModule) => Object.keys(d.resumeActions ?? {})))];

/** Workflow templates of every domain. */
export const TEMPLATES = DOMAINS.flatMap((d: DomainModule) => d.templates ?? []);
