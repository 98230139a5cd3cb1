import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';
import { IssuerCreate, IssuerListQuery, IssuerPage, IssuerReply } from './issuers-schemas.js';
import { fetchIssuer, findIssuers, issuerView, registerIssuer, revokeIssuerKey } from './issuers-service.js';

const r = routeGroup('mandates', { read: ['pay:read'], write: ['members:manage'] });

export const issuerRoutes = [
  r.post(
    '/v1/pay/issuers',
    'Register a payment issuer: a mandate it signs verifies against this key (owner or admin)',
    {
      description:
        "A signed mandate verifies only against the account's registered, unrevoked keys of the issuer it " +
        'names (`issuer.entityId`), never a key in the mandate itself.',
      body: IssuerCreate,
      response: { 201: IssuerReply },
      mcpTool: 'pay.registerIssuer',
      handler: async ({ body, principal }, deps) =>
        new Reply(201, { ok: true, issuer: issuerView(await registerIssuer(deps, principal, body)) }),
    },
  ),
  r.get('/v1/pay/issuers', "The account's payment issuers, newest first", {
    query: IssuerListQuery,
    response: { 200: IssuerPage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findIssuers(deps, principal, query);
      return { ok: true, issuers: rows.map(issuerView), nextCursor };
    },
  }),
  r.get('/v1/pay/issuers/{issuerId}', 'A payment issuer and its key', {
    response: { 200: IssuerReply },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      issuer: issuerView(await fetchIssuer(deps, principal, params.issuerId)),
    }),
  }),
  r.post(
    '/v1/pay/issuers/{issuerId}/revoke',
    "Revoke an issuer's key: mandates signed with it are refused from now on",
    {
      response: { 200: IssuerReply },
      handler: async ({ params, principal }, deps) => ({
        ok: true,
        issuer: issuerView(await revokeIssuerKey(deps, principal, params.issuerId)),
      }),
    },
  ),
];
