/**
 * The signals module's registration (its routes, the pending-match sweep): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/signals/index.ts, its public face.
 */
import { automationEvents } from '../automation/index.js';
import type { ServiceModule } from '../module-registry.js';
import { sweepPendingMatches } from './pending.js';
import { routes } from './routes.js';

/** Its outbox events, declared with the other automation module's in jobs/automation/events.ts, by type prefix. */
const events = Object.fromEntries(
  Object.entries(automationEvents.events).filter(([type]) => type.startsWith('signal.')),
);

export const signals: ServiceModule = {
  name: 'signals',
  routes,
  events,
  // A match whose start a dying process lost starts within about a minute and a half, once.
  sweeps: { 'signals.pending': { cron: '* * * * *', run: sweepPendingMatches } },
};
