/**
 * The migration module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/migration/index.ts, its public face.
 */

import { defineDomain } from '../domain.js';
import { routes, scopes } from './routes.js';
import { migrationStep } from './step.js';
import { vocabulary } from './vocabulary.js';

/**
 * Migration safety with the real Postgres parser: locks, rewrites, destruction and ordering, with the safe sequence for
 * each; runs nothing.
 */
export const migration = defineDomain({
  name: 'migration',
  summary: 'Migration safety with the real Postgres parser; runs nothing',
  scopes,
  routes,
  step: migrationStep,
  vocabulary,
});
