/**
 * The resolve module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/resolve/index.ts, its public face.
 */

import { defineDomain } from '../domain.js';
import { caseEvents } from './cases/events.js';
import { sweepDeadlines } from './cases/review.js';
import { caseRoutes } from './cases/routes.js';
import { withCaseLink } from './cases/run-link.js';
import { routes, scopes } from './routes.js';
import { resolveStep } from './step.js';
import { templates } from './templates.js';
import { vocabulary } from './vocabulary.js';

/** Audit: scam signals, contradictions, hidden fees and unmet rules, with the evidence for each. */
export const resolve = defineDomain({
  name: 'resolve',
  summary: 'Audit, contradictions, evidence and cases',
  scopes,
  routes: [...routes, ...caseRoutes],
  step: withCaseLink(resolveStep),
  vocabulary,
  templates,
  events: caseEvents,
  sweeps: { 'cases.deadlines': { cron: '*/5 * * * *', run: sweepDeadlines } },
});
