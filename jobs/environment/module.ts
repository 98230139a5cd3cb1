/**
 * The environment module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/environment/index.ts, its public face.
 */

import { defineDomain } from '../domain.js';
import { routes, scopes } from './routes.js';
import { environmentStep } from './step.js';
import { vocabulary } from './vocabulary.js';

/** Detects runtimes, services, secrets and setup steps of a project; executes no commands */
export const environment = defineDomain({
  name: 'environment',
  summary: 'Detects runtimes, services, secrets and setup steps of a project; executes no commands',
  scopes,
  vocabulary,
  routes,
  step: environmentStep,
});
