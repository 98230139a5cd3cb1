import { timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { SESSION_COOKIE, sessionPrincipal } from '../../jobs/accounts/sessions.js';
import type { Deps } from '../../shared/deps.js';
import { forbidden } from '../../shared/errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Signing in needs no CSRF token (there is no session to ride yet), and a stale cookie must not stop it. */
const SIGN_IN = '/v1/session';

function sameSecret(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The dashboard's caller: a live session cookie becomes the principal when
 * no Authorization header is sent (a bearer token always wins). A cookie is
 * sent by the browser on its own, so every mutating request riding on it
 * must also carry the session's CSRF token in `X-CSRF-Token` (403 otherwise);
 * the cookie is SameSite=Strict as a second line. An unknown or expired
 * cookie is ignored, as a public route ignores a bad token.
 */
export function sessionAuth(deps: Deps) {
  return async (ctx: Context, next: Next) => {
    const secret =
      ctx.get('authorization') || (ctx.method === 'POST' && ctx.path === SIGN_IN)
        ? undefined
        : ctx.cookies.get(SESSION_COOKIE);
    const principal = secret ? await sessionPrincipal(deps, secret) : null;
    if (principal) {
      if (!SAFE_METHODS.has(ctx.method) && !sameSecret(ctx.get('x-csrf-token'), principal.csrfToken)) {
        throw forbidden(
          "CSRF token missing or wrong: a request signed in by the dashboard cookie must send the session's " +
            'X-CSRF-Token header',
        );
      }
      ctx.state.principal = principal;
    }
    await next();
  };
}
