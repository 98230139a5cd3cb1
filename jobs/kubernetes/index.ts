import { defineDomain } from '../domain.js';
import { routes, scopes } from './routes.js';
import { kubernetesStep } from './step.js';
import { vocabulary } from './vocabulary.js';

/** Kubernetes findings and approval-gated remediations; never mutates a live cluster */
export const kubernetes = defineDomain({
  name: 'kubernetes',
  summary: 'Kubernetes findings and approval-gated remediations; never mutates a live cluster',
  scopes,
  vocabulary,
  routes,
  step: kubernetesStep,
});

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { repairReport } from './logic.js';
