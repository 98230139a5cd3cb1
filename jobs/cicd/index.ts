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

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { isProduction, planRelease, type Strategy } from './logic.js';
