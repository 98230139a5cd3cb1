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
