import { defineDomain } from '../domain.js';
import { routes, scopes } from './routes.js';
import { securityStep } from './step.js';
import { vocabulary } from './vocabulary.js';

/** Secret scanning (secretlint) and risky configuration; secret references checked without exposing values. */
export const security = defineDomain({
  name: 'security',
  summary: 'Secret scanning and risky configuration; secret references checked without exposing values',
  scopes,
  routes,
  step: securityStep,
  vocabulary,
});
