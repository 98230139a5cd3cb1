/**
 * The envelopes module's registration (its routes): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/envelopes/index.ts, its public face.
 */
export { routes } from './routes.js';
