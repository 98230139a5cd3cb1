/**
 * The events module's registration (its routes): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/events/index.ts, its public face.
 */

import { routes as deliveries } from './deliveries-routes.js';
import { routes as events } from './routes.js';
import { routes as subscriptions } from './subscriptions-routes.js';

/** The event outbox, webhook subscriptions and the delivery ledger: the routes of the events module. */
export const routes = [...events, ...subscriptions, ...deliveries];
