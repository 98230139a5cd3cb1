import { defineDomain } from '../domain.js';
import { routes, scopes } from './routes.js';
import { resolveStep } from './step.js';
import { templates } from './templates.js';
import { vocabulary } from './vocabulary.js';

/** Audit: scam signals, contradictions, hidden fees and unmet rules, with the evidence for each. */
export const resolve = defineDomain({
  name: 'resolve',
  summary: 'Audit, contradictions, evidence and cases',
  scopes,
  routes,
  step: resolveStep,
  vocabulary,
  templates,
});
