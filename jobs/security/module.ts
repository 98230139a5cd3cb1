/**
 * The security module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/security/index.ts, its public face.
 */

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
