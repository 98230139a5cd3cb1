import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { harness } from '../support/harness.js';
import { startExtraApp } from '../support/extra-app.js';

/** Signs in an account made by the harness (password `password-123`); returns the cookie pair and the CSRF token. */
async function signIn(email: string, password = 'password-123') {
  const res = await harness.call('POST', '/v1/session', { body: { email, password } });
  assert.equal(res.status, 201, res.text);
  const setCookie = res.headers.get('set-cookie')!;
  return { cookie: setCookie.split(';')[0]!, setCookie, csrf: res.body.session.csrfToken as string, res };
}

const emailOf = (accountId: string) => `${accountId}@test.local`;

describe('dashboard session', () => {
  it('signs in with email and password: an HTTP-only SameSite cookie that authenticates reads', async () => {
    const a = await harness.account();
    const { cookie, setCookie, csrf, res } = await signIn(emailOf(a.accountId).toUpperCase());
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
    assert.doesNotMatch(setCookie, /Secure/); // plain HTTP here; HTTPS origins get Secure
    assert.ok(!JSON.stringify(res.body).includes(cookie.split('=')[1]!), 'the cookie secret is not in the body');
    const me = await harness.call('GET', '/v1/session', { headers: { cookie } });
    assert.equal(me.status, 200);
    assert.equal(me.body.account.accountId, a.accountId);
    assert.equal(me.body.session.csrfToken, csrf);
    const tokens = await harness.call('GET', '/v1/tokens', { headers: { cookie } });
    assert.equal(tokens.status, 200);
    assert.equal(tokens.body.tokens[0].tokenId, a.tokenId);
  });

  it('marks the cookie Secure when the client came over HTTPS', async () => {
    const a = await harness.account();
    // The harness app does not trust X-Forwarded-Proto, so build the expectation from the route itself: https origin →
    // Secure.
    const { routes } = await import('../../jobs/accounts/session-routes.js');
    const route = routes.find((r) => r.method === 'POST' && r.path === '/v1/session')!;
    const reply = (await route.handler!(
      {
        body: { email: emailOf(a.accountId), password: 'password-123' },
        ip: '203.0.113.9',
        origin: 'https://awp.example',
      } as never,
      harness.deps,
    )) as { headers: Record<string, string> };
    assert.match(reply.headers['Set-Cookie']!, /; Secure$/);
  });

  it('refuses a wrong password and an unknown email alike (401), and bad input (400)', async () => {
    const a = await harness.account();
    const wrong = await harness.call('POST', '/v1/session', {
      body: { email: emailOf(a.accountId), password: 'nope-nope' },
    });
    const unknown = await harness.call('POST', '/v1/session', {
      body: { email: 'nobody@test.local', password: 'password-123' },
    });
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, 401);
    assert.equal(wrong.body.message, unknown.body.message);
    assert.equal(wrong.headers.get('set-cookie'), null);
    assert.equal(
      (await harness.call('POST', '/v1/session', { body: { email: 'not-an-email', password: 'x' } })).status,
      400,
    );
  });

  it(
    'refuses a mutating call riding on the cookie without ' + 'the CSRF token (403), and admits it with the token',
    async () => {
      const a = await harness.account();
      const { cookie, csrf } = await signIn(emailOf(a.accountId));
      const refused = await harness.call('POST', '/v1/tokens', { headers: { cookie }, body: { name: 'x' } });
      assert.equal(refused.status, 403);
      assert.match(refused.body.message, /CSRF/);
      const forged = await harness.call('POST', '/v1/tokens', {
        headers: { cookie, 'x-csrf-token': csrf.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) },
        body: { name: 'x' },
      });
      assert.equal(forged.status, 403);
      const created = await harness.call('POST', '/v1/tokens', {
        headers: { cookie, 'x-csrf-token': csrf },
        body: { name: 'from the dashboard', scopes: ['runs:read'] },
      });
      assert.equal(created.status, 201);
      // runs:read only
      assert.equal((await harness.call('GET', '/v1/tokens', { token: created.body.token })).status, 403);
    },
  );

  it('signs out: the same cookie no longer works (401), and signing out again is 401', async () => {
    const a = await harness.account();
    const { cookie, csrf } = await signIn(emailOf(a.accountId));
    const out = await harness.call('DELETE', '/v1/session', { headers: { cookie, 'x-csrf-token': csrf } });
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie')!, /Max-Age=0/);
    assert.equal((await harness.call('GET', '/v1/tokens', { headers: { cookie } })).status, 401);
    assert.equal(
      (await harness.call('DELETE', '/v1/session', { headers: { cookie, 'x-csrf-token': csrf } })).status,
      401,
    );
  });

  it('has no session for a bearer token: sign-out is 404, the overview still answers', async () => {
    const a = await harness.account();
    assert.equal((await harness.call('DELETE', '/v1/session', { token: a.token })).status, 404);
    const me = await harness.call('GET', '/v1/session', { token: a.token });
    assert.equal(me.body.session, null);
    assert.equal(me.body.account.usage.limit, null); // team plan: unlimited
  });

  it("never lets a session reach MCP or another account's records (404)", async () => {
    const a = await harness.account();
    const b = await harness.account();
    const { cookie, csrf } = await signIn(emailOf(a.accountId));
    assert.equal((await harness.call('GET', `/v1/tokens/${b.tokenId}`, { headers: { cookie } })).status, 404);
    const mcp = await harness.call('POST', '/mcp', {
      headers: { cookie, 'x-csrf-token': csrf },
      body: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
    assert.equal(mcp.status, 403);
    assert.match(mcp.body.message, /mcp/i);
  });

  it('resends activation to a pending account (a new code), 409 once active', async () => {
    const pending = await harness.account({ activated: false, plan: 'builder' });
    const sent = await harness.call('POST', '/v1/profiles/activation/resend', { token: pending.token });
    assert.equal(sent.status, 200);
    assert.equal(sent.body.sentTo, emailOf(pending.accountId));
    const mails = await harness.deps.db('outbound_mails').where({ account_id: pending.accountId });
    assert.equal(mails.length, 1);
    const active = await harness.account();
    assert.equal((await harness.call('POST', '/v1/profiles/activation/resend', { token: active.token })).status, 409);
    assert.equal((await harness.call('POST', '/v1/profiles/activation/resend', {})).status, 401);
  });

  it('limits sign-in attempts per email (429 with Retry-After), even with the right password after', async () => {
    const app = await startExtraApp({
      SIGN_IN_ATTEMPTS_PER_15_MIN: '3',
      QUEUE_PREFIX: `{awp-signin-${randomBytes(3).toString('hex')}}`,
    });
    try {
      const a = await harness.account();
      for (let i = 0; i < 3; i++) {
        assert.equal(
          (
            await harness.call(
              'POST',
              '/v1/session',
              { body: { email: emailOf(a.accountId), password: `wrong-${i}` } },
              app.url,
            )
          ).status,
          401,
        );
      }
      const limited = await harness.call(
        'POST',
        '/v1/session',
        { body: { email: emailOf(a.accountId), password: 'password-123' } },
        app.url,
      );
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error, 'rateLimitExceeded');
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      assert.equal(limited.headers.get('set-cookie'), null);
    } finally {
      await app.stop();
    }
  });
});
