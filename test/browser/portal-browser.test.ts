import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { buildApp } from '../../api/app.js';
import { ALL_ROUTES } from '../../api/routes/index.js';
import { getScreenshot } from '../../jobs/bridge/portal/repository.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { koaListener } from '../../shared/http/koa-listener.js';
import type { Stoppable } from '../../shared/lifecycle.js';
import { PORTAL_ACTIONS_QUEUE } from '../../shared/queues.js';
import { startWorkers } from '../../workers/domains.js';
import { CHROMIUM, skipWithoutChromium } from '../support/chromium.js';
import { startExtraApp } from '../support/extra-app.js';
import { harness } from '../support/harness.js';
import { startPortal } from '../support/portal-pages.js';
import { until } from '../support/receiver.js';

const USER = 'marta.kowalski';
const PASS = 'pw-Tq84-vRz!x9';

/**
 * The portal browser in headless chromium against a local portal: a template end to end, preflight and scope failing
 * closed, credentials never shown.
 */
describe('portal browser in headless chromium', function () {
  this.timeout(120_000);
  const lines: string[] = [];
  let server: http.Server;
  let base = '';
  let deps: ReturnType<typeof createDeps>;
  let portal: Awaited<ReturnType<typeof startPortal>>;
  let token = '';
  let workers: Stoppable[] = [];
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : null };
  };
  const texts: string[] = [];
  /** Asks for the run (202, queued) and follows the action until the worker has settled it. */
  const runToRest = async (portalActionId: string, path = `/v1/bridge/portal/actions/${portalActionId}/run`) => {
    const asked = await call('POST', path, path.startsWith('/v1/tools/') ? { portalActionId } : undefined);
    texts.push(asked.text);
    assert.equal(asked.status, 202, asked.text);
    assert.ok(['queued', 'running'].includes(asked.body.action.status), asked.text);
    const done = await until(
      () => call('GET', `/v1/bridge/portal/actions/${portalActionId}`),
      (r) => ['succeeded', 'failed', 'blocked'].includes(r.body.action.status),
      60_000,
    );
    texts.push(done.text);
    return done;
  };
  const session = async (extra: Record<string, unknown> = {}) => {
    const res = await call('POST', '/v1/bridge/portal/sessions', {
      targetOrigin: portal.origin,
      credentials: { usernameRef: 'cred:pb-user', passwordRef: 'cred:pb-pass' },
      scope: { origins: [portal.origin], paths: ['/login', '/home', '/invoices'] },
      ...extra,
    });
    assert.equal(res.status, 201, res.text);
    return res.body.session.portalSessionId as string;
  };

  before(async function () {
    skipWithoutChromium(this);
    process.env.AWP_SECRET_TEST_PB_USER = USER;
    process.env.AWP_SECRET_TEST_PB_PASS = PASS;
    portal = await startPortal({ username: USER, password: PASS });
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    // Its own queue prefix and its own portal worker, so the worker's log lines are captured too.
    deps = createDeps(
      harness.configWith({
        LOG_LEVEL: 'debug',
        BROWSER_EXECUTABLE: CHROMIUM,
        QUEUE_PREFIX: `{awp-portal-${randomBytes(3).toString('hex')}}`,
      }),
      createLogger('debug', {}, sink),
    );
    workers = startWorkers(deps, [PORTAL_ACTIONS_QUEUE]);
    server = http.createServer(koaListener(buildApp(deps, ALL_ROUTES)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    token = (await harness.account()).token;
    assert.equal(
      (
        await harness.call('POST', '/v1/bridge/credentials', {
          token: token,
          body: { name: 'pb-user', kind: 'apiKey', value: USER },
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await harness.call('POST', '/v1/bridge/credentials', {
          token: token,
          body: { name: 'pb-pass', kind: 'password', value: PASS },
        })
      ).status,
      201,
    );
  });
  after(async () => {
    delete process.env.AWP_SECRET_TEST_PB_USER;
    delete process.env.AWP_SECRET_TEST_PB_PASS;
    for (const w of workers) await w.stop();
    server?.closeAllConnections();
    if (server) await new Promise((r) => server.close(r));
    await deps?.close();
    await portal?.stop();
  });

  it(
    'runs a template end to end: signs in, reads the ' + 'invoices, with a screenshot and its SHA-256 per ' + 'step',
    async () => {
      const portalSessionId = await session();
      const made = await call('POST', '/v1/bridge/portal/actions', {
        portalSessionId,
        templateId: 'download-latest-invoice',
      });
      assert.equal(made.status, 201, made.text);
      texts.push(made.text);
      const run = await runToRest(made.body.action.portalActionId, '/v1/tools/portalBrowser');
      const action = run.body.action;
      assert.equal(action.status, 'succeeded', run.text);
      assert.equal(action.attempts, 1);
      assert.equal(action.extracted.latestInvoice, 'INV-2026-011 (42.50 EUR)');
      assert.deepEqual(action.extracted.invoices[1], ['INV-2026-011', '2026-11-01', '42.50 EUR']);
      assert.equal(action.artefacts.length, action.steps.length);
      assert.deepEqual(action.artefacts.map((a: any) => a.typed ?? null).slice(1, 3), [
        '[credential:username]',
        '[credential:password]',
      ]);
      assert.ok(action.artefacts[4].url.endsWith('/invoices'));
      for (const a of action.artefacts) {
        const png = await getScreenshot(deps.db, a.screenshot.sha256);
        assert.ok(png, 'the screenshot is stored');
        assert.equal(createHash('sha256').update(png!).digest('hex'), a.screenshot.sha256);
        assert.equal(png!.length, a.screenshot.bytes);
      }
      assert.ok(portal.hits.includes('POST /login') && portal.hits.includes('GET /invoices'));
      assert.equal(
        (await call('POST', `/v1/bridge/portal/actions/${made.body.action.portalActionId}/run`)).status,
        409,
        'a succeeded action does not run again',
      );
    },
  );

  it('a page that shows a credential has it redacted from what is extracted', async () => {
    const portalSessionId = await session();
    const steps = [
      { op: 'navigate', url: '/login' },
      { op: 'fill', selector: '#username', credential: 'username' },
      { op: 'fill', selector: '#password', credential: 'password' },
      { op: 'click', selector: 'button[type=submit]' },
      { op: 'extractText', selector: '[data-portal=welcome]', as: 'welcome' },
    ];
    const made = await call('POST', '/v1/bridge/portal/actions', { portalSessionId, steps });
    const run = await runToRest(made.body.action.portalActionId);
    assert.equal(run.body.action.status, 'succeeded', run.text);
    assert.match(run.body.action.extracted.welcome, /^Welcome back, \[redacted\]$/);
  });

  it('a session with a missing variable fails preflight and the browser does nothing', async () => {
    const portalSessionId = await session({
      credentials: { usernameRef: 'cred:pb-user', passwordRef: 'cred:pb-unset' },
    });
    const made = await call('POST', '/v1/bridge/portal/actions', {
      portalSessionId,
      templateId: 'download-latest-invoice',
    });
    const hits = portal.hits.length;
    const run = await runToRest(made.body.action.portalActionId, '/v1/tools/portalBrowser');
    assert.deepEqual(
      [run.body.action.status, run.body.action.blocked.reason, run.body.action.artefacts],
      ['blocked', 'preflight.credentialsMissing', []],
    );
    assert.equal(run.body.action.blocked.errors[0].variable, 'pb-unset');
    assert.equal(portal.hits.length, hits, 'the portal saw no request');
  });

  it('a navigation out of scope stops the action where it happened, and the page is never reached', async () => {
    const portalSessionId = await session();
    const steps = [
      { op: 'navigate', url: '/login' },
      { op: 'fill', selector: '#username', credential: 'username' },
      { op: 'fill', selector: '#password', credential: 'password' },
      { op: 'click', selector: 'button[type=submit]' },
      { op: 'click', selector: '#admin' },
      { op: 'screenshot' },
    ];
    const made = await call('POST', '/v1/bridge/portal/actions', { portalSessionId, steps });
    assert.equal(made.status, 201, made.text);
    const run = await runToRest(made.body.action.portalActionId);
    const action = run.body.action;
    assert.deepEqual(
      [action.status, action.blocked.reason, action.blocked.step],
      ['blocked', 'outOfScope', 4],
      run.text,
    );
    assert.equal(action.artefacts.length, 4, 'steps before the block keep their artefacts; none after');
    assert.ok(!portal.hits.includes('GET /admin'));
  });

  it('answers 422 when the server has no browser, and leaves the action queued', async () => {
    const app = await startExtraApp({ BROWSER_EXECUTABLE: '/nonexistent/chromium' });
    try {
      const portalSessionId = await session();
      const made = await call('POST', '/v1/bridge/portal/actions', {
        portalSessionId,
        steps: [{ op: 'navigate', url: '/login' }],
      });
      const res = await fetch(`${app.url}/v1/tools/portalBrowser`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ portalActionId: made.body.action.portalActionId }),
      });
      const body = (await res.json()) as any;
      assert.equal(res.status, 422);
      assert.match(body.message, /No browser on this server/);
      assert.equal(
        (await call('GET', `/v1/bridge/portal/actions/${made.body.action.portalActionId}`)).body.action.status,
        'queued',
      );
    } finally {
      await app.stop();
    }
  });

  it('no credential value appears in any response or captured log line', () => {
    assert.ok(texts.length >= 5 && lines.length > 0);
    for (const text of [...texts, ...lines]) {
      assert.ok(!text.includes(PASS), 'password leaked');
      assert.ok(!text.includes(USER), 'username leaked');
    }
  });
});
