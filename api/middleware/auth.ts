import type { Context, Next } from 'koa';
import { findActiveToken } from '../../shared/db/accounts.js';
import type { Deps } from '../../shared/deps.js';
import { forbidden, unauthorized } from '../../shared/errors.js';
import { hashToken } from '../../shared/auth/issue-token.js';
import type { Principal } from '../../shared/schemas/auth.js';

const BEARER = /^Bearer\s+(\S+)$/i;
const TOUCH_EVERY_MS = 60_000;

/**
 * Resolves the bearer token, when one is sent, into `ctx.state.principal`.
 * It does not refuse anything itself: public routes ignore a bad token, and
 * `requireAuth` refuses on protected ones.
 */
export function authenticate(deps: Deps) {
  const touched = new Map<string, number>();
  return async (ctx: Context, next: Next) => {
    const header = ctx.get('authorization');
    if (header) {
      const match = BEARER.exec(header);
      const row = match ? await findActiveToken(deps.db, hashToken(match[1]!)) : null;
      if (row) {
        const principal: Principal = {
          accountId: row.account_id,
          tokenId: row.token_id,
          scopes: row.scopes,
          plan: row.plan,
          activated: row.account_status === 'active',
        };
        ctx.state.principal = principal;
        // last_used_at is informational; writing it at most once a minute keeps auth read-only on the hot path.
        const now = Date.now();
        if ((touched.get(row.token_id) ?? 0) < now - TOUCH_EVERY_MS) {
          touched.set(row.token_id, now);
          deps.db('api_tokens').where({ id: row.token_id }).update({ last_used_at: deps.db.fn.now() })
            .catch((err: Error) => deps.log.warn({ err: err.message }, 'token touch failed'));
        }
      } else {
        ctx.state.authFailure = match ? 'unknown or revoked token' : 'malformed Authorization header';
      }
    }
    await next();
  };
}

/** Route-level guard: a principal must exist and hold every listed scope. */
export function requireAuth(ctx: Context, scopes: string[] = []): Principal {
  const principal = ctx.state.principal as Principal | undefined;
  if (!principal) {
    throw unauthorized(ctx.state.authFailure ? `Bearer token rejected: ${ctx.state.authFailure}` : 'A bearer token is required (Authorization: Bearer <token>)');
  }
  const missing = scopes.filter((s) => !principal.scopes.includes(s) && !principal.scopes.includes('admin'));
  if (missing.length > 0) throw forbidden(`Token lacks scope ${missing.join(', ')}`);
  return principal;
}
