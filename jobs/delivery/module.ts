/**
 * The delivery module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/delivery/index.ts, its public face.
 */

import { defineDomain } from '../domain.js';
import { grantRoutes } from './grant-routes.js';
import { routes as runRoutes } from './routes.js';
import { followCiRuns, processCiCheck } from './ci-follow.js';
import { DELIVERY_CI_QUEUE } from '../../shared/queues.js';
import { deliveryStep } from './step.js';
import { vocabulary } from './vocabulary.js';

/** Gated delivery runs: configure, validate, deploy, monitor, repair; prod pauses at the deploy gate. */
export const delivery = defineDomain({
  name: 'delivery',
  summary: 'Gated delivery runs and bounded autonomy',
  scopes: { read: ['delivery:write'], write: ['delivery:write'] },
  vocabulary,
  routes: [...runRoutes, ...grantRoutes],
  step: deliveryStep,
  resumeActions: {
    approve: { description: 'Approve the deploy (or the actions autonomy did not cover)' },
    reject: { description: 'Refuse it: the run ends blocked' },
  },
  // awaitingCi: the deploy's workflow run is under way (the delivery.ci sweep resumes the run when it ends); dryRun:
  // nothing was deployed (no CI connector, or a dry run asked for); failed: the CI run failed.
  statuses: {
    resting: ['awaitingApproval', 'awaitingCi'],
    final: { delivered: 'succeeded', blocked: 'failed', dryRun: 'succeeded', failed: 'failed' },
  },
  // The sweep is the safety net; the fast follow (a delayed job per check) makes a run learn its outcome in seconds.
  sweeps: { 'delivery.ci': { cron: '* * * * *', run: (deps) => followCiRuns(deps) } },
  queues: { [DELIVERY_CI_QUEUE]: processCiCheck },
  runView: (results) => {
    const d = results.delivery as { stages?: unknown; handoff?: unknown } | undefined;
    return d ? { stages: d.stages ?? [], handoff: d.handoff ?? null } : {};
  },
});
