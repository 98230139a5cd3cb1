/**
 * The events module's registration (its routes, the delivery ledger's sweeps, the engine hook that wakes the
 * dispatcher): only the module lists (jobs/domains.ts, jobs/modules.ts) import this file. Other modules use
 * jobs/events/index.ts, its public face.
 */
import type { ServiceModule } from '../module-registry.js';
import { dispatchDue } from './deliver.js';
import { routes as deliveries } from './deliveries-routes.js';
import { reconcileOutbox, sweepLeases } from './fanout.js';
import { routes as events } from './routes.js';
import { routes as subscriptions } from './subscriptions-routes.js';
import { wakeDispatcher } from './wake.js';

/** The event outbox, webhook subscriptions and the delivery ledger. */
export const eventsModule: ServiceModule = {
  name: 'events',
  routes: [...events, ...subscriptions, ...deliveries],
  sweeps: {
    'deliveries.sweep': { cron: '* * * * *', run: sweepLeases },
    // A lost wake-up delays a delivery by at most a minute: the pump claims whatever is due.
    'deliveries.pump': {
      cron: '* * * * *',
      run: async (deps) => {
        await wakeDispatcher(deps);
        return { woke: true };
      },
    },
    'outbox.reconcile': { cron: '*/5 * * * *', run: reconcileOutbox },
  },
  queues: { events: (_job, deps) => reconcileOutbox(deps), webhooks: dispatchDue },
  provides: { wakeDeliveries: wakeDispatcher },
};
