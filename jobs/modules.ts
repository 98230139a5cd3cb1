import type { AnyRoute } from '../shared/http/route-spec.js';
import * as accounts from './accounts/index.js';
import * as agents from './agents/index.js';
import * as approvals from './approvals/index.js';
import * as audit from './audit/index.js';
import * as channels from './channels/index.js';
import { routes as deliveryRuns } from './delivery/routes.js';
import * as events from './events/index.js';
import * as members from './members/index.js';
import * as orchestrator from './orchestrator/index.js';
import * as sandbox from './sandbox/index.js';
import * as schedules from './schedules/index.js';
import * as signals from './signals/index.js';
import * as tasks from './tasks/index.js';
import * as workflows from './workflows/index.js';

/** An area of the service beside the domains (jobs/domains.ts): its name and the routes it answers. */
export interface ServiceModule {
  name: string;
  routes: readonly AnyRoute[];
}

/**
 * The one list of service modules: adding one is its folder and a line here
 * (and a migration when it stores data). Delivery's run routes are listed on
 * their own because they use the orchestrator, which reads the domain list
 * that delivery's module is in (see jobs/delivery/README.md).
 */
export const SERVICE_MODULES: ServiceModule[] = [
  { name: 'accounts', routes: accounts.routes },
  { name: 'agents', routes: agents.routes },
  { name: 'approvals', routes: approvals.routes },
  { name: 'audit', routes: audit.routes },
  { name: 'channels', routes: channels.routes },
  { name: 'deliveryRuns', routes: deliveryRuns },
  { name: 'events', routes: events.routes },
  { name: 'members', routes: members.routes },
  { name: 'orchestrator', routes: orchestrator.routes },
  { name: 'sandbox', routes: sandbox.routes },
  { name: 'schedules', routes: schedules.routes },
  { name: 'signals', routes: signals.routes },
  { name: 'tasks', routes: tasks.routes },
  { name: 'workflows', routes: workflows.routes },
];
