import type { Deps } from '../shared/deps.js';
import { isMain, runProcess, type Stoppable } from '../shared/lifecycle.js';
import { startWorkers } from './domains.js';
import { serveWorkMetrics } from './metrics-server.js';

/**
 * Webhook egress runs in its own process so slow receivers never hold up
 * domain work: the outbox fan-out (`events`), the dispatcher (`webhooks`) and the inbox's notifications
 * (`inbox-notify`: mails and chat messages).
 */
export function startDelivery(deps: Deps): Stoppable[] {
  return startWorkers(deps, ['events', 'webhooks', 'inbox-notify']);
}

if (isMain(import.meta.url))
  runProcess('delivery', async (deps) => [...startDelivery(deps), ...(await serveWorkMetrics(deps, 'delivery'))]);
