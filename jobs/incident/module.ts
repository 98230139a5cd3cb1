/**
 * The incident module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/incident/index.ts, its public face.
 */

import { defineDomain } from '../domain.js';
import { routes, scopes } from './routes.js';
import { incidentStep } from './step.js';
import { vocabulary } from './vocabulary.js';

/** Incident response: actions, approvals and timeline; mutating responses are approval-gated */
export const incident = defineDomain({
  name: 'incident',
  summary: 'Incident response: actions, approvals and timeline; mutating responses are approval-gated',
  scopes,
  vocabulary,
  routes,
  step: incidentStep,
});
