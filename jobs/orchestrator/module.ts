/**
 * The orchestrator module's registration (its routes): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/orchestrator/index.ts, its public face.
 */

import { routes as nlp } from './nlp-routes.js';
import { routes as proofCards } from './proof-card-routes.js';
import { routes as orchestrator } from './routes.js';
import { routes as runs } from './runs-routes.js';

/** Runs: submitting, following, answering and cancelling them, their proof cards, and the request tools. */
export const routes = [...orchestrator, ...runs, ...proofCards, ...nlp];
