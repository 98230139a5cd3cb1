import {
  accountOverview,
  callerMember,
  isSession,
  resendActivation,
  SESSION_COOKIE,
  signIn,
  signOut,
} from './sessions.js';
import { OkEnvelope } from '../../shared/schemas/common.js';
import { ActivationResent, CurrentSession, SignedIn, SignIn } from './session-schemas.js';
import { defineRoute, Reply } from '../../shared/http/route-spec.js';

/**
 * HTTP-only (no script reads it), SameSite=Strict (no cross-site request carries it), Secure whenever the client came
 * over HTTPS.
 */
function sessionCookie(value: string, maxAgeSeconds: number, origin: string): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(origin.startsWith('https:') ? ['Secure'] : []),
  ].join('; ');
}

export const routes = [
  defineRoute({
    method: 'POST',
    path: '/v1/session',
    tag: 'dashboard',
    auth: 'public',
    summary: "Sign in to the dashboard with the profile's email and password",
    description:
      'Sets the HTTP-only session cookie and answers the CSRF token. Attempts are limited per email and per ' +
      'client IP (429 with Retry-After).',
    body: SignIn,
    response: { 201: SignedIn },
    handler: async ({ body, ip, origin }, deps) => {
      const s = await signIn(deps, { ...body, ip });
      const maxAge = Math.round((s.expiresAt.getTime() - Date.now()) / 1000);
      return new Reply(
        201,
        { ok: true, session: { sessionId: s.sessionId, csrfToken: s.csrfToken, expiresAt: s.expiresAt.toISOString() } },
        { 'Set-Cookie': sessionCookie(s.secret, maxAge, origin), 'Cache-Control': 'no-store' },
      );
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/session',
    tag: 'dashboard',
    auth: 'bearer',
    scopes: [],
    summary: "The caller's account, plan usage this month and (signed in by cookie) its session and CSRF token",
    response: { 200: CurrentSession },
    handler: async ({ principal }, deps) =>
      new Reply(
        200,
        {
          ok: true,
          account: await accountOverview(deps, principal),
          member: await callerMember(deps, principal),
          session: isSession(principal)
            ? {
                sessionId: principal.tokenId,
                csrfToken: principal.csrfToken,
                expiresAt: principal.expiresAt.toISOString(),
              }
            : null,
        },
        { 'Cache-Control': 'no-store' },
      ),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/session',
    tag: 'dashboard',
    auth: 'bearer',
    scopes: [],
    summary: 'Sign out: the session cookie stops working at once',
    description: '404 for a bearer token (it has no session; revoke it instead).',
    response: { 200: OkEnvelope },
    handler: async ({ principal, origin }, deps) => {
      await signOut(deps, principal);
      return new Reply(200, { ok: true }, { 'Set-Cookie': sessionCookie('', 0, origin) });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/profiles/activation/resend',
    tag: 'security',
    auth: 'bearer',
    scopes: [],
    summary: 'Mail a new activation code (the previous one stops working); 409 once activated',
    response: { 200: ActivationResent },
    handler: async ({ principal }, deps) => ({ ok: true, ...(await resendActivation(deps, principal)) }),
  }),
];
