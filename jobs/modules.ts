import { accounts } from './accounts/module.js';
import { agents } from './agents/module.js';
import { approvals } from './approvals/module.js';
import { audit } from './audit/module.js';
import { channels } from './channels/module.js';
import { DOMAINS } from './domains.js';
import { envelopes } from './envelopes/module.js';
import { eventsModule } from './events/module.js';
import { inbox } from './inbox/module.js';
import { buildModuleRegistry, type ModuleRegistry, type ServiceModule } from './module-registry.js';
import { orchestrator } from './orchestrator/module.js';
import { sandbox } from './sandbox/module.js';
import { schedules } from './schedules/module.js';
import { signals } from './signals/module.js';
import { tasks } from './tasks/module.js';
import { workflows } from './workflows/module.js';

/**
 * The one list of service modules: adding one is its folder and a line here (and a migration when it stores data).
 * Each module.ts declares its ServiceModule: its routes, and what it brings to the engine (outbox event types, sweeps,
 * queues, engine hooks).
 */
export const SERVICE_MODULES: ServiceModule[] = [
  accounts,
  agents,
  envelopes,
  approvals,
  audit,
  channels,
  eventsModule,
  inbox,
  orchestrator,
  sandbox,
  schedules,
  signals,
  tasks,
  workflows,
];

/**
 * The registry of both lists, built once. Entry points (api/app.ts,
 * workers/*, scripts/start.ts, the test harness) hand it to the engine with
 * useModules(MODULES); nothing in the engine imports this file.
 */
export const MODULES: ModuleRegistry = buildModuleRegistry(DOMAINS, SERVICE_MODULES);
