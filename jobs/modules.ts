import * as accounts from './accounts/module.js';
import * as agents from './agents/module.js';
import * as envelopes from './envelopes/module.js';
import * as approvals from './approvals/module.js';
import * as audit from './audit/module.js';
import { automationEvents } from './automation/events.js';
import * as channels from './channels/module.js';
import { DOMAINS } from './domains.js';
import * as events from './events/module.js';
import * as members from './members/module.js';
import { buildModuleRegistry, type ModuleRegistry, type ServiceModule } from './module-registry.js';
import * as orchestrator from './orchestrator/module.js';
import * as sandbox from './sandbox/module.js';
import * as schedules from './schedules/module.js';
import * as signals from './signals/module.js';
import * as tasks from './tasks/module.js';
import * as workflows from './workflows/module.js';

/** Signals' and schedules' outbox events, declared together in jobs/automation/events.ts, by type prefix. */
const automationEventsOf = (prefix: string) =>
  Object.fromEntries(Object.entries(automationEvents.events).filter(([type]) => type.startsWith(prefix)));

/** The one list of service modules: adding one is its folder and a line here (and a migration when it stores data). */
export const SERVICE_MODULES: ServiceModule[] = [
  { name: 'accounts', routes: accounts.routes },
  { name: 'agents', routes: agents.routes },
  { name: 'envelopes', routes: envelopes.routes },
  { name: 'approvals', routes: approvals.routes },
  { name: 'audit', routes: audit.routes },
  { name: 'channels', routes: channels.routes },
  { name: 'events', routes: events.routes },
  { name: 'members', routes: members.routes },
  { name: 'orchestrator', routes: orchestrator.routes },
  { name: 'sandbox', routes: sandbox.routes },
  { name: 'schedules', routes: schedules.routes, events: automationEventsOf('schedule.') },
  { name: 'signals', routes: signals.routes, events: automationEventsOf('signal.') },
  { name: 'tasks', routes: tasks.routes },
  { name: 'workflows', routes: workflows.routes },
];

/**
 * The registry of both lists, built once. Entry points (api/app.ts,
 * workers/*, scripts/start.ts, the test harness) hand it to the engine with
 * useModules(MODULES); nothing in the engine imports this file.
 */
export const MODULES: ModuleRegistry = buildModuleRegistry(DOMAINS, SERVICE_MODULES);
