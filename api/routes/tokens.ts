import { Type } from '@sinclair/typebox';
import { getToken, listTokens, revokeToken, tokenView } from '../../shared/db/accounts.js';
import { forbidden, notFound } from '../../shared/errors.js';
import { issueToken } from '../../shared/auth/issue-token.js';
import { DEFAULT_SCOPES, TokenCreate, TokenIssued, TokenView } from '../../shared/schemas/auth.js';
import { IdParams, Ok } from '../../shared/schemas/common.js';
import { defineRoute, Reply } from '../../shared/http/route-spec.js';

const MANAGE = ['tokens:manage'];
const TokenParams = IdParams('tokenId');
const TokenList = Ok({ tokens: Type.Array(TokenView) }, 'TokenList');
const TokenOne = Ok({ token: TokenView }, 'TokenOne');

export const routes = [
  defineRoute({
    method: 'GET', path: '/v1/tokens', tag: 'security', auth: 'bearer', scopes: MANAGE, summary: 'List the account\'s API tokens (never their secrets)',
    response: { 200: TokenList },
    handler: async ({ principal }, deps) => ({ ok: true, tokens: (await listTokens(deps.db, principal!.accountId)).map(tokenView) }),
  }),
  defineRoute({
    method: 'POST', path: '/v1/tokens', tag: 'security', auth: 'bearer', scopes: MANAGE, summary: 'Create an API token; its secret is shown once',
    description: 'Scopes default to every non-admin scope and cannot exceed those of the calling token.',
    body: TokenCreate, response: { 201: TokenIssued },
    handler: async ({ body, principal }, deps) => {
      const scopes = body.scopes ?? DEFAULT_SCOPES.filter((s) => principal!.scopes.includes(s) || principal!.scopes.includes('admin'));
      const escalation = scopes.filter((s) => !principal!.scopes.includes(s) && !principal!.scopes.includes('admin'));
      if (escalation.length > 0) throw forbidden(`A token cannot grant scopes its creator lacks: ${escalation.join(', ')}`);
      const { token, row } = await issueToken(deps.db, principal!.accountId, { name: body.name ?? 'api', scopes });
      return new Reply(201, { ok: true, token, tokenInfo: tokenView(row) });
    },
  }),
  defineRoute({
    method: 'GET', path: '/v1/tokens/{tokenId}', tag: 'security', auth: 'bearer', scopes: MANAGE, summary: 'Fetch one token\'s metadata',
    params: TokenParams, response: { 200: TokenOne },
    handler: async ({ params, principal }, deps) => {
      const row = await getToken(deps.db, principal!.accountId, params.tokenId);
      if (!row) throw notFound(`Token ${params.tokenId}`);
      return { ok: true, token: tokenView(row) };
    },
  }),
  defineRoute({
    method: 'POST', path: '/v1/tokens/{tokenId}/rotate', tag: 'security', auth: 'bearer', scopes: MANAGE, summary: 'Replace a token: a new secret with the same name and scopes; the old one is revoked at once',
    params: TokenParams, response: { 201: TokenIssued },
    handler: async ({ params, principal }, deps) => {
      const issued = await deps.db.transaction(async (trx) => {
        const old = await revokeToken(trx, principal!.accountId, params.tokenId);
        if (!old) throw notFound(`Active token ${params.tokenId}`);
        return issueToken(trx, principal!.accountId, { name: old.name, scopes: old.scopes, rotatedFrom: old.id });
      });
      return new Reply(201, { ok: true, token: issued.token, tokenInfo: tokenView(issued.row) });
    },
  }),
  defineRoute({
    method: 'POST', path: '/v1/tokens/{tokenId}/revoke', tag: 'security', auth: 'bearer', scopes: MANAGE, summary: 'Revoke a token; it answers 401 from then on',
    params: TokenParams, response: { 200: TokenOne },
    handler: async ({ params, principal }, deps) => {
      const row = await revokeToken(deps.db, principal!.accountId, params.tokenId);
      if (!row) throw notFound(`Active token ${params.tokenId}`);
      return { ok: true, token: tokenView(row) };
    },
  }),
];
