/**
 * The schedules module's registration (its routes, the pending-firing sweep): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/schedules/index.ts, its public face.
 */
import { automationEvents } from '../automation/index.js';
import type { ServiceModule } from '../module-registry.js';
import { sweepPendingFirings } from './firing.js';
import { routes } from './routes.js';

/** Its outbox events, declared with the other automation module's in jobs/automation/events.ts, by type prefix. */
const events = Object.fromEntries(
  Object.entries(automationEvents.events).filter(([type]) => type.startsWith('schedule.')),
);

export const schedules: ServiceModule = {
  name: 'schedules',
  routes,
  events,
  // A firing whose start a dying process lost starts within about a minute and a half, once.
  sweeps: { 'schedules.pending': { cron: '* * * * *', run: sweepPendingFirings } },
};
