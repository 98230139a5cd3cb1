import { defineRoute, Reply } from '../../shared/http/route-spec.js';
import { pathParams, routeGroup } from '../../shared/http/route-group.js';
import { Deleted } from '../../shared/schemas/common.js';
import {
  CredentialCreate,
  CredentialPage,
  CredentialReply,
  CredentialRotate,
  CredentialStatusChange,
} from './schemas.js';
import {
  createCredential,
  credentialViews,
  fetchCredential,
  findCredentials,
  removeCredential,
  rotateCredential,
  setStatus,
} from './service.js';

const scopes = { read: ['bridge:read'], write: ['bridge:write'] };
const r = routeGroup('bridge', scopes);

type Deps = Parameters<typeof credentialViews>[0];
type Row = Parameters<typeof credentialViews>[1][number];
const one = async (deps: Deps, row: Row) => ({
  ok: true as const,
  credential: (await credentialViews(deps, [row]))[0]!,
});

/** The credential vault: per-account secrets, write-only values, referenced as cred:NAME. */
export const credentialRoutes = [
  r.post('/v1/bridge/credentials', "Store a credential in the account's vault (the value is write-only)", {
    description:
      "The value is sealed (AES-256-GCM under the account's data key) and never returned. " +
      'Reference it as cred:NAME on a connector, portal session or tool call of this account; ' +
      'no other account can resolve it.',
    body: CredentialCreate,
    response: { 201: CredentialReply },
    handler: async ({ body, principal }, deps) =>
      new Reply(201, await one(deps, await createCredential(deps, principal, body))),
  }),
  r.get('/v1/bridge/credentials', "List the account's credentials (never their values)", {
    list: true,
    response: { 200: CredentialPage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findCredentials(deps, principal, query);
      return { ok: true, credentials: await credentialViews(deps, rows), nextCursor };
    },
  }),
  r.get('/v1/bridge/credentials/{name}', 'Fetch a credential (never its value)', {
    response: { 200: CredentialReply },
    handler: async ({ params, principal }, deps) => one(deps, await fetchCredential(deps, principal, params.name)),
  }),
  r.post(
    '/v1/bridge/credentials/{name}/rotate',
    'Rotate: a new version becomes current, the previous stays usable for a grace period',
    {
      body: CredentialRotate,
      response: { 200: CredentialReply },
      handler: async ({ params, body, principal }, deps) =>
        one(deps, await rotateCredential(deps, principal, params.name, body)),
    },
  ),
  r.post('/v1/bridge/credentials/{name}/disable', 'Disable a credential: references to it stop resolving', {
    body: CredentialStatusChange,
    response: { 200: CredentialReply },
    handler: async ({ params, body, principal }, deps) =>
      one(deps, await setStatus(deps, principal, params.name, 'disabled', body.reason)),
  }),
  r.post('/v1/bridge/credentials/{name}/enable', 'Enable a disabled credential again', {
    body: CredentialStatusChange,
    response: { 200: CredentialReply },
    handler: async ({ params, body, principal }, deps) =>
      one(deps, await setStatus(deps, principal, params.name, 'active', body.reason)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/bridge/credentials/{name}',
    tag: 'bridge',
    auth: 'bearer',
    scopes: scopes.write,
    params: pathParams('/v1/bridge/credentials/{name}'),
    summary: 'Delete a credential and every version of it',
    response: { 200: Deleted },
    handler: async ({ params, principal }, deps) => {
      await removeCredential(deps, principal, (params as { name: string }).name);
      return { ok: true };
    },
  }),
];
