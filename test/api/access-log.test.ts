import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { buildApp } from '../../api/app.js';
import { ALL_ROUTES } from '../../api/routes/index.js';
import { createDeps } from '../../shared/deps.js';
import { AppError } from '../../shared/errors.js';
import { defineRoute } from '../../shared/http/route-spec.js';
import { koaListener } from '../../shared/http/koa-listener.js';
import { createLogger } from '../../shared/log.js';
import { harness } from '../support/harness.js';

interface AccessLine {
  msg: string;
  requestId: string;
  method: string;
  path: string;
  status: number;
  accountId?: string;
}

const testRoutes = [
  defineRoute({
    method: 'GET',
    path: '/test/access-log/crash',
    tag: 'test',
    auth: 'public',
    summary: 'throws',
    handler: () => {
      throw new Error('boom');
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/test/access-log/conflict',
    tag: 'test',
    auth: 'public',
    summary: 'refuses',
    handler: () => {
      throw new AppError('conflict', 'no');
    },
  }),
];

describe('access log', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  let server: http.Server;
  let base = '';
  let deps: ReturnType<typeof createDeps>;
  before(async () => {
    deps = createDeps(harness.configWith({ LOG_LEVEL: 'info' }), createLogger('info', {}, sink));
    server = http.createServer(koaListener(buildApp(deps, [...ALL_ROUTES, ...testRoutes])));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await deps.close();
  });

  /**
   * The request's access line; it is written once the response is handed over, so it may trail the client by a tick.
   */
  async function accessLineOf(requestId: string): Promise<AccessLine> {
    for (let i = 0; i < 200; i++) {
      const found = lines
        .map((l) => JSON.parse(l) as AccessLine)
        .filter((l) => l.requestId === requestId && l.msg === 'request');
      if (found.length > 0) {
        assert.equal(found.length, 1, 'one access line per request');
        return found[0]!;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no access line for ${requestId}: ${lines.join('')}`);
  }

  async function statusLogged(
    path: string,
    headers: Record<string, string> = {},
  ): Promise<{ sent: number; logged: AccessLine }> {
    const res = await fetch(`${base}${path}`, { headers });
    await res.text();
    return { sent: res.status, logged: await accessLineOf(res.headers.get('x-request-id')!) };
  }

  it('logs the status the client received: 401, 404, 409 and 500 as such, and 200', async () => {
    const { token, accountId } = await harness.account();
    const cases: Array<[string, Record<string, string>, number]> = [
      ['/v1/runs', {}, 401],
      ['/v1/no-such-route', {}, 404],
      ['/test/access-log/conflict', {}, 409],
      ['/test/access-log/crash', {}, 500],
      ['/v1/runs', { authorization: `Bearer ${token}` }, 200],
    ];
    for (const [path, headers, expected] of cases) {
      const { sent, logged } = await statusLogged(path, headers);
      assert.equal(sent, expected, path);
      assert.equal(logged.status, expected, `${path} answered ${sent} and was logged as ${logged.status}`);
      assert.equal(logged.method, 'GET');
      assert.equal(logged.path, path);
    }
    const ok = await statusLogged('/v1/runs', { authorization: `Bearer ${token}` });
    assert.equal(ok.logged.accountId, accountId);
  });

  it('logs a 405 and a malformed-body 400 with their own status', async () => {
    const res = await fetch(`${base}/v1/orchestrator/run`, {
      method: 'POST',
      body: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    await res.text();
    assert.ok([400, 401].includes(res.status));
    assert.equal((await accessLineOf(res.headers.get('x-request-id')!)).status, res.status);
    const wrong = await fetch(`${base}/healthz`, { method: 'DELETE' });
    await wrong.text();
    assert.equal(wrong.status, 405);
    assert.equal((await accessLineOf(wrong.headers.get('x-request-id')!)).status, 405);
  });
});
