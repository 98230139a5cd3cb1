import { routeGroup } from '../../shared/http/route-group.js';
import { CicdPlan } from '../../shared/schemas/dev-delivery.js';
import { defineDomain } from '../domain.js';
import { vocabulary } from './vocabulary.js';

/** Default scopes of the domain's routes. */
const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('workflows', scopes);

/** Release plans with gates, steps and rollback */
export const cicd = defineDomain({
  name: 'cicd',
  summary: 'Release plans with gates, steps and rollback',
  pendingIssue: 16,
  scopes,
  vocabulary,
  routes: [
    r.post('/v1/cicd/plan', 'Release plan with gates, steps and rollback', { countsAsWorkflow: true, body: CicdPlan, mcpTool: 'cicd.plan' }),
  ],
});
