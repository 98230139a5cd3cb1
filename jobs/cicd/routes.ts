import { routeGroup } from '../../shared/http/route-group.js';
import { ReleasePlan } from '../../shared/schemas/delivery-ops.js';
import { CicdPlan } from '../../shared/schemas/dev-delivery.js';
import { planRelease } from './logic.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('workflows', scopes);

export const routes = [
  r.post('/v1/cicd/plan', 'Release plan with gates, steps and rollback', {
    description:
      'Judges the gates in `artifacts` (build, tests, security need `passed`, health `healthy`, approval ' +
      '`approved`); a missing or pending gate has not passed. Production (`prod`, `production`, `live`) ' +
      'needs an approval: without one the verdict is `needsApproval`. Steps follow the strategy (canary ' +
      'weights and pauses, blue-green switch and drain, rolling surge/unavailable, recreate downtime); ' +
      '`previousVersion` names the rollback target.',
    countsAsWorkflow: true,
    body: CicdPlan,
    response: { 200: ReleasePlan },
    mcpTool: 'cicd.plan',
    handler: ({ body }) => ({ ok: true, ...planRelease(body) }),
  }),
];
