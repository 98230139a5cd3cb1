import { routeGroup } from '../../shared/http/route-group.js';
import { AutonomousRequest } from '../../shared/schemas/orchestrator.js';
import { DeliveryResume, DeliveryRun } from '../../shared/schemas/dev-delivery.js';
import { defineDomain } from '../domain.js';
import { vocabulary } from './vocabulary.js';

/** Default scopes of the domain's routes. */
const scopes = { read: ['delivery:write'], write: ['delivery:write'] };
const r = routeGroup('workflows', scopes);

/** Gated delivery runs: configure, validate, deploy, monitor, repair; prod pauses at the deploy gate. */
export const delivery = defineDomain({
  name: 'delivery',
  summary: 'Gated delivery runs and bounded autonomy',
  pendingIssue: 16,
  scopes,
  vocabulary,
  statuses: { resting: ['awaitingApproval'], final: { delivered: 'succeeded', blocked: 'failed' } },
  routes: [
    r.post('/v1/delivery/run', 'Configure, validate, deploy, monitor, repair; prod pauses at the deploy gate', { countsAsWorkflow: true, body: DeliveryRun }),
    r.post('/v1/delivery/runs/{runId}/resume', 'Approve or refuse a delivery run at its gate', { body: DeliveryResume }),
    r.post('/v1/orchestrator/autonomous', 'Run delivery or environment work under an explicit autonomy grant (fail-closed)', { countsAsWorkflow: true, body: AutonomousRequest, tag: 'orchestrator' }),
  ],
});
