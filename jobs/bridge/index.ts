import { toolsGroup } from '../../shared/http/route-group.js';
import type { AnyRoute } from '../../shared/http/route-spec.js';
import { defineDomain } from '../domain.js';
import { actionRoutes } from './action-routes.js';
import { complianceRoutes } from './compliance-routes.js';
import { ActionAwaitingClientPayload } from './action-schemas.js';
import { r, registryRoutes, scopes } from './routes.js';
import { vocabulary } from './vocabulary.js';

const tools = toolsGroup;
const pending = (issue: number, routes: AnyRoute[]) => routes.map((route) => ({ ...route, pendingIssue: issue }));

/**
 * Connectors, scoped credentials, provider actions and portals: how the
 * service reaches the outside. The registry half (connectors, preflight,
 * connection sessions, the policy) and actions (provider calls on their own
 * queue, jobs/bridge/action-worker.ts) and outreach compliance are built;
 * portals (issue 20) are declared and answer 501. No orchestrator step yet: a run routed through
 * bridge is refused as not available.
 */
export const bridge = defineDomain({
  name: 'bridge',
  summary: 'Connectors, scoped credentials, provider actions and portals',
  scopes,
  vocabulary,
  events: {
    'bridge.action.awaitingClient': {
      description: 'A bridge action was dispatched to a client-hosted adapter (bridge://client/<name>); it waits for POST /v1/bridge/actions/{actionId}/update until its deadline',
      payload: ActionAwaitingClientPayload,
    },
  },
  routes: [
    ...registryRoutes,
    ...actionRoutes,
    ...complianceRoutes,
    ...pending(20, [
      r.post('/v1/bridge/portal/sessions', 'Create a credential-reference-backed portal session'),
      r.get('/v1/bridge/portal/sessions', 'List portal sessions', { list: true }),
      r.get('/v1/bridge/portal/sessions/{portalSessionId}', 'Fetch a portal session'),
      r.post('/v1/bridge/portal/sessions/{portalSessionId}/preflight', 'Check credential, MFA and target-scope readiness'),
      r.post('/v1/bridge/portal/actions', 'Create a portal action'),
      r.get('/v1/bridge/portal/actions', 'List portal actions', { list: true }),
      r.get('/v1/bridge/portal/actions/{portalActionId}', 'Fetch a portal action'),
      r.post('/v1/bridge/portal/actions/{portalActionId}/run', 'Run through the portal browser tool'),
      r.get('/v1/bridge/portal/templates', 'List action templates'),
      r.get('/v1/bridge/portal/templates/{templateId}', 'Fetch an action template'),
      r.get('/v1/bridge/portal/playbooks', 'List recovery playbooks'),
      r.get('/v1/bridge/portal/playbooks/{playbookId}', 'Fetch a recovery playbook'),
      r.post('/v1/bridge/portal/playbooks/{playbookId}/instantiate', 'Instantiate a playbook into queued portal actions'),
      tools.post('/v1/tools/portalBrowser', 'Fail-closed authenticated portal action with proof-ready artefacts'),
    ]),
  ],
});
