/**
 * The orchestrator module's registration (its routes): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/orchestrator/index.ts, its public face.
 */

import type { ServiceModule } from '../module-registry.js';
import { routes as nlp } from './nlp-routes.js';
import { routes as proofCards } from './proof-card-routes.js';
import { routes as submitting } from './routes.js';
import { routes as runs } from './runs-routes.js';

/** Runs: submitting, following, answering and cancelling them, their proof cards, and the request tools. */
export const orchestrator: ServiceModule = {
  name: 'orchestrator',
  routes: [...submitting, ...runs, ...proofCards, ...nlp],
};
