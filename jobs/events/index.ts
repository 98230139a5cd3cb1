import { routes as deliveries } from './deliveries-routes.js';
import { routes as events } from './routes.js';
import { routes as subscriptions } from './subscriptions-routes.js';

/** The event outbox, webhook subscriptions and the delivery ledger: the routes of the events module. */
export const routes = [...events, ...subscriptions, ...deliveries];

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { retryAfterMs, sign } from './logic.js';
export { wakeDispatcher } from './wake.js';
