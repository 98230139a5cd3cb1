import { Type } from '@sinclair/typebox';
import { createToken, fetchToken, listAccountTokens, revokeAccountToken, rotateToken } from './service.js';
import { tokenView } from './views.js';
import { TokenCreate, TokenIssued, TokenView } from '../../shared/schemas/auth.js';
import { IdParams, Ok } from '../../shared/schemas/common.js';
import { defineRoute, Reply } from '../../shared/http/route-spec.js';

const MANAGE = ['tokens:manage'];
const TokenParams = IdParams('tokenId');
const TokenList = Ok({ tokens: Type.Array(TokenView) }, 'TokenList');
const TokenOne = Ok({ token: TokenView }, 'TokenOne');
const issuedView = (issued: Awaited<ReturnType<typeof createToken>>) =>
  new Reply(201, { ok: true, token: issued.token, tokenInfo: tokenView(issued.row) });

export const routes = [
  defineRoute({
    method: 'GET',
    path: '/v1/tokens',
    tag: 'security',
    auth: 'bearer',
    scopes: MANAGE,
    summary: "List the account's API tokens (never their secrets)",
    response: { 200: TokenList },
    handler: async ({ principal }, deps) => ({
      ok: true,
      tokens: (await listAccountTokens(deps, principal!)).map(tokenView),
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/tokens',
    tag: 'security',
    auth: 'bearer',
    scopes: MANAGE,
    summary: 'Create an API token; its secret is shown once',
    description: 'Scopes default to every non-admin scope and cannot exceed those of the calling token.',
    body: TokenCreate,
    response: { 201: TokenIssued },
    returnsSecret: true,
    handler: async ({ body, principal }, deps) => issuedView(await createToken(deps, principal!, body)),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/tokens/{tokenId}',
    tag: 'security',
    auth: 'bearer',
    scopes: MANAGE,
    summary: "Fetch one token's metadata",
    params: TokenParams,
    response: { 200: TokenOne },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      token: tokenView(await fetchToken(deps, principal!, params.tokenId)),
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/tokens/{tokenId}/rotate',
    tag: 'security',
    auth: 'bearer',
    scopes: MANAGE,
    summary: 'Replace a token: a new secret with the same name and scopes; the old one is revoked at once',
    description: 'The calling token must hold every scope of the token it rotates (403 otherwise).',
    params: TokenParams,
    response: { 201: TokenIssued },
    returnsSecret: true,
    handler: async ({ params, principal }, deps) => issuedView(await rotateToken(deps, principal!, params.tokenId)),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/tokens/{tokenId}/revoke',
    tag: 'security',
    auth: 'bearer',
    scopes: MANAGE,
    summary: 'Revoke a token; it answers 401 from then on',
    description:
      'The calling token must hold every scope of the token it revokes (403 otherwise), unless it revokes itself.',
    params: TokenParams,
    response: { 200: TokenOne },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      token: tokenView(await revokeAccountToken(deps, principal!, params.tokenId)),
    }),
  }),
];
