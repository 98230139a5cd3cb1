/**
 * The cicd module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/cicd/index.ts, its public face.
 */

import { defineDomain } from '../domain.js';
import { routes, scopes } from './routes.js';
import { cicdStep } from './step.js';
import { vocabulary } from './vocabulary.js';

/** Release plans with gates, steps and rollback */
export const cicd = defineDomain({
  name: 'cicd',
  summary: 'Release plans with gates, steps and rollback',
  scopes,
  vocabulary,
  routes,
  step: cicdStep,
});
