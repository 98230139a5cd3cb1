import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';
import {
  AutonomyGrantCreate,
  AutonomyGrantListQuery,
  AutonomyGrantPage,
  AutonomyGrantReply,
  AutonomyGrantRevoke,
} from './grants-schemas.js';
import { createGrant, fetchGrant, findGrants, grantView, revokeAutonomyGrant } from './grants-service.js';

const r = routeGroup('delivery', { read: ['runs:read'], write: ['approvals:write'], domain: 'delivery' });

export const grantRoutes = [
  r.post('/v1/delivery/autonomy/grants', 'An approver grants bounded autonomy: environments, actions, budget, expiry', {
    description:
      'Needs approvals:write. POST /v1/orchestrator/autonomous names the grant by `grantId`; a run submitted ' +
      "by the member who made the grant cannot use it (409 selfApproval) unless the account's approval " +
      'policy allows `autonomy`. Each run draws the actions it takes from `budget`, once.',
    body: AutonomyGrantCreate,
    response: { 201: AutonomyGrantReply },
    mcpTool: 'delivery.createAutonomyGrant',
    handler: async ({ body, principal }, deps) =>
      new Reply(201, { ok: true, grant: grantView(await createGrant(deps, principal, body)) }),
  }),
  r.get('/v1/delivery/autonomy/grants', "The account's autonomy grants, newest first", {
    query: AutonomyGrantListQuery,
    response: { 200: AutonomyGrantPage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findGrants(deps, principal, query);
      return { ok: true, grants: rows.map(grantView), nextCursor };
    },
  }),
  r.get('/v1/delivery/autonomy/grants/{grantId}', 'An autonomy grant with what is left of its budget', {
    response: { 200: AutonomyGrantReply },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      grant: grantView(await fetchGrant(deps, principal, params.grantId)),
    }),
  }),
  r.post('/v1/delivery/autonomy/grants/{grantId}/revoke', 'Revoke an autonomy grant: no run draws on it afterwards', {
    body: AutonomyGrantRevoke,
    response: { 200: AutonomyGrantReply },
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      grant: grantView(await revokeAutonomyGrant(deps, principal, params.grantId, body.reason)),
    }),
  }),
];
