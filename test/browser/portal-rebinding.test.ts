import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { requestPortalRun, runQueuedPortalAction } from '../../jobs/bridge/portal/run.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { DEFAULT_SCOPES } from '../../shared/schemas/auth.js';
import { CHROMIUM, skipWithoutChromium } from '../support/chromium.js';
import { harness } from '../support/harness.js';
import { ALLOWED, FORBIDDEN, rebinding, startRebindTargets, type RebindTargets } from '../support/rebinding.js';

const HOST = 'portal.rebind.test';

/**
 * A portal action's run itself (not just chromium behind the proxy) against a
 * portal whose name answers 127.0.0.1 first and the forbidden 127.0.0.2 on
 * every later lookup: the run signs in with a vault credential, follows a
 * redirect, loads subresources and navigates again, and every request lands
 * on the first answer. A second run resolves afresh, gets only the forbidden
 * address, and fails without reaching it. `.test` resolves nowhere, so a
 * request that reached a server at all went through the run's pinning proxy.
 */
describe('portal action end to end against DNS rebinding', function () {
  this.timeout(120_000);
  const PASS = `pw-${randomBytes(8).toString('hex')}`;
  let t: RebindTargets;
  let deps: ReturnType<typeof createDeps>;
  let acct: { accountId: string; token: string; tokenId: string };

  before(async function () {
    skipWithoutChromium(this);
    t = await startRebindTargets((req, res) => {
      const html = (body: string) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><body>${body}</body></html>`);
      if (req.url === '/login' && req.method === 'POST') {
        let raw = '';
        req.on('data', (c) => {
          raw += c;
        });
        req.on('end', () => {
          const ok = new URLSearchParams(raw).get('password') === PASS;
          res.writeHead(303, { location: ok ? '/home' : '/login?failed=1' }).end();
        });
        return;
      }
      if (req.url === '/login') {
        return html(
          '<form method="post" action="/login"><input id="password" name="password" type="password">' +
            '<button type="submit">Sign in</button></form>',
        );
      }
      if (req.url === '/home') return html('<img src="/logo.gif"><p id="who">signed in at allowed</p>');
      res.end('');
    });
    // Its own queue prefix: no worker serves it, so the test runs the queued attempt itself, with its pin.
    deps = createDeps(
      harness.configWith({
        BROWSER_EXECUTABLE: CHROMIUM,
        QUEUE_PREFIX: `{awp-rebind-${randomBytes(3).toString('hex')}}`,
      }),
      createLogger('silent'),
    );
    acct = await harness.account();
    const stored = await harness.call('POST', '/v1/bridge/credentials', {
      token: acct.token,
      body: { name: 'rb-pass', kind: 'password', value: PASS },
    });
    assert.equal(stored.status, 201, stored.text);
  });
  after(async () => {
    await deps?.close();
    await t?.stop();
  });

  const principal = () => ({
    accountId: acct.accountId,
    tokenId: acct.tokenId,
    scopes: DEFAULT_SCOPES,
    plan: 'team' as const,
    activated: true,
  });
  /** Asks for the action's run as the route does, then plays the portal-actions worker with `pin`. */
  async function run(pin: ReturnType<typeof rebinding>) {
    const asked = await requestPortalRun(deps, principal(), await created());
    assert.deepEqual([asked.status, asked.attempts], ['queued', 1]);
    return (await runQueuedPortalAction(deps, asked.id, 1, pin))!;
  }
  async function created(): Promise<string> {
    const session = await harness.call('POST', '/v1/bridge/portal/sessions', {
      token: acct.token,
      body: { targetOrigin: t.at(HOST, ''), credentials: { passwordRef: 'cred:rb-pass' } },
    });
    assert.equal(session.status, 201, session.text);
    const made = await harness.call('POST', '/v1/bridge/portal/actions', {
      token: acct.token,
      body: {
        portalSessionId: session.body.session.portalSessionId,
        steps: [
          { op: 'navigate', url: '/login' },
          { op: 'fill', selector: '#password', credential: 'password' },
          { op: 'click', selector: 'button' },
          { op: 'navigate', url: '/home' },
          { op: 'extractText', selector: '#who', as: 'who' },
        ],
      },
    });
    assert.equal(made.status, 201, made.text);
    return made.body.action.portalActionId;
  }

  it(
    'a run connects only to the address checked first: ' + 'sign-in, redirect, subresources, a second navigation',
    async () => {
      const pin = rebinding([ALLOWED], [FORBIDDEN]);
      const done = await run(pin);
      assert.equal(done.status, 'succeeded', JSON.stringify({ error: done.error, blocked: done.blocked }));
      assert.deepEqual(done.extracted, { who: 'signed in at allowed' });
      assert.deepEqual(
        pin.lookups.filter((h) => h === HOST),
        [HOST],
        'the run resolved the name once, through the pin',
      );
      const paths = t.allowed.map((s) => s.path);
      for (const p of ['/login', '/home', '/logo.gif']) assert.ok(paths.includes(p), `${p} reached the allowed server`);
      assert.ok(
        paths.filter((p) => p === '/home').length >= 2,
        'the redirect and the later navigation both landed there',
      );
      assert.ok(
        t.allowed.every((s) => s.host === `${HOST}:${t.port}`),
        'the Host header kept the name',
      );
      assert.deepEqual(t.forbidden, [], 'the forbidden server was never reached');
      assert.ok(!JSON.stringify(done).includes(PASS), 'the typed credential is not recorded');
    },
  );

  it(
    'a later run resolves afresh; when the name now answers only the forbidden address, it fails and reaches ' +
      'nothing',
    async () => {
      const pin = rebinding([ALLOWED], [FORBIDDEN]);
      await pin.resolve!(HOST); // the first answer was spent on an earlier run
      const before = t.allowed.length;
      const done = await run(pin);
      assert.notEqual(done.status, 'succeeded');
      assert.equal(done.extracted && (done.extracted as Record<string, unknown>).who, undefined);
      assert.equal(t.allowed.length, before, 'nothing reached the allowed server either');
      assert.deepEqual(t.forbidden, [], 'the forbidden server was never reached');
    },
  );
});
