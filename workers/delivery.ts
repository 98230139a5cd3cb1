import type { Deps } from '../shared/deps.js';
import { isMain, runProcess, type Stoppable } from '../shared/lifecycle.js';
import { startWorkers } from './domains.js';
import { serveWorkMetrics } from './metrics-server.js';

/**
 * Webhook egress runs in its own process so slow receivers never hold up
 * domain work: the outbox fan-out (`events`) and the dispatcher (`webhooks`).
 */
export function startDelivery(deps: Deps): Stoppable[] {
  return startWorkers(deps, ['events', 'webhooks']);
}

if (isMain(import.meta.url))
  runProcess('delivery', async (deps) => [...startDelivery(deps), ...(await serveWorkMetrics(deps, 'delivery'))]);
