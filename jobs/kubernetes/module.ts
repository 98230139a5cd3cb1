/**
 * The kubernetes module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/kubernetes/index.ts, its public face.
 */

import { defineDomain } from '../domain.js';
import type { Processor } from '../domain.js';
import { KUBERNETES_ROLLOUTS_QUEUE } from '../../shared/queues.js';
import { routes, scopes } from './routes.js';
import { kubernetesStep } from './step.js';
import { vocabulary } from './vocabulary.js';
import { processRolloutCheck, sweepRollouts } from './watch.js';

const rolloutCheck: Processor = (job, deps) => processRolloutCheck(deps, job.data);

/** Kubernetes findings, and live repairs applied only under an approval or an autonomy grant */
export const kubernetes = defineDomain({
  name: 'kubernetes',
  summary: 'Kubernetes findings, and live repairs applied under approval with the rollout watched and rolled back',
  scopes,
  vocabulary,
  routes,
  step: kubernetesStep,
  statuses: { resting: ['awaitingRollout'], final: { repaired: 'succeeded', rolledBack: 'failed', blocked: 'failed' } },
  queues: { [KUBERNETES_ROLLOUTS_QUEUE]: rolloutCheck },
  // A rollout check lost with Redis: a resting run whose checks stopped gets one again within about two minutes.
  sweeps: { 'kubernetes.rollouts': { cron: '* * * * *', run: sweepRollouts } },
});
