import { Reply } from '../../shared/http/route-spec.js';
import { ActionCreate, ActionListQuery, ActionPage, ActionReply, ActionUpdate } from './action-schemas.js';
import { actionView } from './action-views.js';
import { createAction, fetchAction, findActions, runAction, updateActionByClient } from './actions-service.js';
import { r } from './routes.js';

/** The action half of bridge: provider calls queued after the preflight's checks, run on the bridge-actions queue. */
export const actionRoutes = [
  r.post('/v1/bridge/actions', 'Queue a provider action and attach it to channel state', {
    description:
      'Checked as a preflight is (connector, capability, policy, scope, session, references set) before ' +
      'anything is queued: a failed check is 422 naming each, a disabled connector or a revoked or expired ' +
      "session 409. A hosted action is then POSTed to the connector's endpoint by the bridge-actions worker; " +
      'a bridge://client/<name> one waits in awaitingClient for update.',
    body: ActionCreate,
    response: { 201: ActionReply },
    mcpTool: 'bridge.createAction',
    handler: async ({ body, principal }, deps) =>
      new Reply(201, { ok: true, action: actionView(await createAction(deps, principal, body)) }),
  }),
  r.get('/v1/bridge/actions', 'List bridge actions', {
    query: ActionListQuery,
    response: { 200: ActionPage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findActions(deps, principal, query);
      return { ok: true, actions: rows.map(actionView), nextCursor };
    },
  }),
  r.get('/v1/bridge/actions/{actionId}', 'Fetch a bridge action', {
    response: { 200: ActionReply },
    mcpTool: 'bridge.getAction',
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      action: actionView(await fetchAction(deps, principal, params.actionId)),
    }),
  }),
  r.post('/v1/bridge/actions/{actionId}/update', 'Update status, response, proof or error', {
    description:
      'How a client-hosted adapter reports (awaitingClient → succeeded, delivered or failed), or a ' +
      "provider's delivery status by hand (succeeded → delivered or failed). Moves follow the action status " +
      'table; 409 with the allowed moves otherwise.',
    body: ActionUpdate,
    response: { 200: ActionReply },
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      action: actionView(await updateActionByClient(deps, principal, params.actionId, body)),
    }),
  }),
  r.post('/v1/bridge/actions/{actionId}/run', 'Run via hosted adapter or dispatch to a client-hosted adapter', {
    description:
      'Idempotent: 202 with the action. A queued one is enqueued (again, if its job was lost); a running, ' +
      'retrying or awaitingClient one is under way and answered as it is; a failed or timedOut one is queued ' +
      'again with the same Idempotency-Key. 409 only for an action that has ended (succeeded, delivered).',
    response: { 202: ActionReply },
    handler: async ({ params, principal }, deps) =>
      new Reply(202, { ok: true, action: actionView(await runAction(deps, principal, params.actionId)) }),
  }),
];
