/**
 * The kubernetes module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/kubernetes/index.ts, its public face.
 */

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
