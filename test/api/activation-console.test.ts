import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { buildApp } from '../../api/app.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { koaListener } from '../../shared/http/koa-listener.js';
import { harness } from '../support/harness.js';

/** An app whose log lines this test reads, in the given NODE_ENV, without SMTP_URL. */
async function appIn(nodeEnv: string) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const deps = createDeps(
    harness.configWith({ NODE_ENV: nodeEnv, LOG_LEVEL: 'debug', PUBLIC_BASE_URL: 'http://awp.test' }),
    createLogger('debug', {}, sink),
  );
  const server = http.createServer(koaListener(buildApp(deps)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    lines,
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await deps.close();
    },
  };
}

const email = () => `console-${Math.random().toString(36).slice(2)}@example.com`;

describe('activation link on the console without SMTP', () => {
  it('in development: printed once, at info level, as a link that activates the account', async () => {
    const app = await appIn('development');
    try {
      const address = email();
      const res = await harness.call(
        'POST',
        '/v1/profiles',
        { body: { email: address, name: 'Dev', password: 'password-1' } },
        app.url,
      );
      assert.equal(res.status, 201);
      assert.equal(res.body.activation.delivery, 'stored');
      const withToken = app.lines.filter((l) => /act_[\w-]{10,}/.test(l));
      assert.equal(withToken.length, 1, `one line carries the token:\n${app.lines.join('')}`);
      const line = JSON.parse(withToken[0]!);
      assert.equal(line.level, 30);
      const link = /http:\/\/awp\.test\/v1\/profiles\/activate\?activationToken=(act_[\w-]+)/.exec(line.msg);
      assert.ok(link, line.msg);
      assert.ok(line.msg.includes(address));
      const activated = await harness.call('GET', `/v1/profiles/activate?activationToken=${link[1]}`);
      assert.equal(activated.status, 200);
    } finally {
      await app.stop();
    }
  });

  it('in production: no log line carries the token or the link', async () => {
    const app = await appIn('production');
    try {
      const res = await harness.call(
        'POST',
        '/v1/profiles',
        { body: { email: email(), name: 'Prod', password: 'password-1' } },
        app.url,
      );
      assert.equal(res.status, 201);
      const out = app.lines.join('');
      assert.ok(app.lines.length > 0, 'the request was logged');
      assert.ok(!/act_[\w-]{10,}/.test(out) && !out.includes('activationToken='), out);
    } finally {
      await app.stop();
    }
  });
});
