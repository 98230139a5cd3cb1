import { routeGroup } from '../../shared/http/route-group.js';
import { ReleasePlan } from '../../shared/schemas/delivery-ops.js';
import { CicdPlan } from '../../shared/schemas/dev-delivery.js';
import { releasePlanFor } from './gates.js';

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
      '`previousVersion` names the rollback target. With `ci.repo` and a GitHub connector in the account, build, ' +
      'tests, security (and approval, given `ci.pullNumber`) are read from the check runs, commit statuses and ' +
      'reviews of `ci.sha` (else the head of `ci.ref`, else main), and the statuses given for them in ' +
      '`artifacts` are ignored (`gateSource.ignored` names them); health stays as given.',
    countsAsWorkflow: true,
    body: CicdPlan,
    response: { 200: ReleasePlan },
    mcpTool: 'cicd.plan',
    handler: async ({ body, principal }, deps) => ({
      ok: true,
      ...(await releasePlanFor(deps, principal.accountId, body)),
    }),
  }),
];
