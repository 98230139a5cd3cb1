/**
 * The bridge module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/bridge/index.ts, its public face.
 */

import { credentialRoutes } from '../credentials/index.js';
import { BRIDGE_ACTIONS_QUEUE, PORTAL_ACTIONS_QUEUE } from '../../shared/queues.js';
import { sweepActions } from './action-jobs.js';
import { processBridgeAction } from './action-worker.js';
import { defineDomain } from '../domain.js';
import { actionRoutes } from './action-routes.js';
import { complianceRoutes } from './compliance-routes.js';
import { portalRoutes } from './portal/routes.js';
import { processPortalAction, sweepPortalActions } from './portal/run.js';
import { ActionAwaitingClientPayload } from './action-schemas.js';
import { registryRoutes, scopes } from './routes.js';
import { vocabulary } from './vocabulary.js';

/**
 * Connectors, scoped credentials, provider actions and portals: how the
 * service reaches the outside. The registry half (connectors, preflight,
 * connection sessions, the policy) and actions (provider calls on their own
 * queue, jobs/bridge/action-worker.ts), outreach compliance and portals
 * (jobs/bridge/portal/: sessions, templates, playbooks, actions run in
 * headless chromium on their own queue) are built. No orchestrator step yet: a run routed through
 * bridge is refused as not available.
 */
export const bridge = defineDomain({
  name: 'bridge',
  summary: 'Connectors, scoped credentials, provider actions and portals',
  scopes,
  vocabulary,
  events: {
    'bridge.action.awaitingClient': {
      description:
        'A bridge action was dispatched to a client-hosted adapter (bridge://client/<name>); it waits for ' +
        'POST /v1/bridge/actions/{actionId}/update until its deadline',
      payload: ActionAwaitingClientPayload,
    },
  },
  queues: { [BRIDGE_ACTIONS_QUEUE]: processBridgeAction, [PORTAL_ACTIONS_QUEUE]: processPortalAction },
  // An action whose job Redis lost (a queued attempt, a retry, a client's timeout, a portal run) gets it back within
  // about two minutes; the workers' claims make a job given twice run once.
  sweeps: {
    'bridge.actions': { cron: '* * * * *', run: sweepActions },
    'portal.actions': { cron: '* * * * *', run: sweepPortalActions },
  },
  routes: [...registryRoutes, ...actionRoutes, ...complianceRoutes, ...portalRoutes, ...credentialRoutes],
});
