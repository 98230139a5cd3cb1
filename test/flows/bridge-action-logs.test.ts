import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createAction } from '../../jobs/bridge/actions-service.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { BRIDGE_ACTIONS_QUEUE } from '../../shared/queues.js';
import { DEFAULT_SCOPES } from '../../shared/schemas/auth.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { daytimeOutreach } from '../support/outreach.js';
import { until } from '../support/receiver.js';

/**
 * The credential a bridge action sends never reaches a log line, even when
 * the provider quotes it back in a refusal: the worker runs with its own
 * deps whose debug-level log is captured here, line by line.
 */
describe('bridge actions: no credential in any log line', function () {
  this.timeout(30_000);
  const credential = `logcheck-${randomBytes(18).toString('hex')}`;
  const lines: string[] = [];
  let server: http.Server;
  let url: string;
  let refuse = false;

  before(async () => {
    process.env.AWP_SECRET_TEST_LOG_TOKEN = credential;
    // A provider that echoes the Authorization header it got, in a 200 or (when refusing) a 422.
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(refuse ? 422 : 200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ok: !refuse,
            error: refuse ? `bad token ${req.headers.authorization}` : undefined,
            youSent: req.headers.authorization,
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/act`;
  });
  after(async () => {
    delete process.env.AWP_SECRET_TEST_LOG_TOKEN;
    await new Promise((r) => server.close(r));
  });

  it('a succeeded and a refused action log nothing of the credential; the provider did receive it', async () => {
    const capture = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const deps = createDeps(
      harness.configWith({ QUEUE_PREFIX: `{awp-actlog-${randomBytes(3).toString('hex')}}` }),
      createLogger('debug', {}, capture),
    );
    const workers = startWorkers(deps, [BRIDGE_ACTIONS_QUEUE]);
    try {
      const { accountId, tokenId, token } = await harness.account();
      const connectorId = `logcheck-${randomBytes(3).toString('hex')}`;
      assert.equal(
        (
          await harness.call('POST', '/v1/bridge/credentials', {
            token: token,
            body: { name: 'log-token', kind: 'bearer', value: credential },
          })
        ).status,
        201,
      );
      const made = await harness.call('POST', '/v1/bridge/connectors', {
        token,
        body: {
          connectorId,
          kind: 'custom',
          caps: ['sms.send'],
          endpoint: url,
          credential: { type: 'bearer', tokenRef: 'cred:log-token' },
        },
      });
      assert.equal(made.status, 201, made.text);
      const principal = { accountId, tokenId, scopes: DEFAULT_SCOPES, plan: 'team' as const, activated: true };
      const read = (id: string) => deps.db('bridge_actions').where({ id }).first();

      const ok = await createAction(deps, principal, {
        connectorId,
        capability: 'sms.send',
        input: { to: '+49305550155', text: 'hi', outreach: daytimeOutreach() },
      });
      const done = await until(
        () => read(ok.id),
        (r) => r.status === 'succeeded' || r.status === 'failed',
      );
      assert.equal(done.status, 'succeeded');
      assert.ok(JSON.stringify(done).includes('youSent'), 'the provider answered');
      // What the provider quoted back is stored masked, so no later read (GET /v1/bridge/actions/{id}) can show it.
      assert.ok(!JSON.stringify(done).includes(credential), 'the stored response carries no credential');
      const shown = await harness.call('GET', `/v1/bridge/actions/${ok.id}`, { token });
      assert.equal(shown.status, 200, shown.text);
      assert.ok(!shown.text.includes(credential), 'the action as answered carries no credential');

      refuse = true;
      const bad = await createAction(deps, principal, {
        connectorId,
        capability: 'sms.send',
        input: { to: '+49305550155', text: 'hi', outreach: daytimeOutreach() },
      });
      const failed = await until(
        () => read(bad.id),
        (r) => r.status === 'failed',
      );
      assert.equal(failed.status, 'failed');
      assert.ok(!JSON.stringify(failed).includes(credential), 'a refusal quoting the credential is stored masked');

      assert.ok(lines.length > 0, 'the worker logged');
      assert.ok(
        lines.some((l) => l.includes(ok.id)),
        "its lines are the action's",
      );
      for (const line of lines)
        assert.ok(!line.includes(credential), `a log line carries the credential: ${line.slice(0, 200)}`);
    } finally {
      for (const w of workers) await w.stop();
      await deps.close();
    }
  });
});
