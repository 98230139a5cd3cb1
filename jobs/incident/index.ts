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

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { respond } from './logic.js';
