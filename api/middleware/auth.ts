import type { Context, Next } from 'koa';
import { tokenAuthenticator } from '../../jobs/accounts/authenticate.js';
import type { Deps } from '../../shared/deps.js';
import { unauthorized } from '../../shared/errors.js';
import { assertScopes, assertTransport } from '../../shared/auth/scopes.js';
import type { Principal, Transport } from '../../shared/schemas/auth.js';

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * Resolves the bearer token, when one is sent, into `ctx.state.principal`.
 * It does not refuse anything itself: public routes ignore a bad token, and
 * `requireAuth` refuses on protected ones.
 */
export function authenticate(deps: Deps) {
  const resolve = tokenAuthenticator(deps);
  return async (ctx: Context, next: Next) => {
    const header = ctx.get('authorization');
    if (header) {
      const match = BEARER.exec(header);
      const principal = match ? await resolve(match[1]!) : null;
      if (principal) ctx.state.principal = principal;
      else ctx.state.authFailure = match ? 'unknown or revoked token' : 'malformed Authorization header';
    }
    await next();
  };
}

/** Route-level guard: a principal must exist, may use this transport and holds every listed scope. */
export function requireAuth(ctx: Context, scopes: string[] = [], transport: Transport = 'http'): Principal {
  const principal = ctx.state.principal as Principal | undefined;
  if (!principal) {
    throw unauthorized(
      ctx.state.authFailure
        ? `Bearer token rejected: ${ctx.state.authFailure}`
        : 'A bearer token is required (Authorization: Bearer <token>)',
    );
  }
  assertTransport(principal, transport);
  assertScopes(principal, scopes);
  return principal;
}
