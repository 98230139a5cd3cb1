import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_SCOPES } from '../../shared/schemas/auth.js';
import { crmConnector, LITERAL } from '../support/bridge.js';
import { harness, type ApiResponse } from '../support/harness.js';
import { spawnEntry, stopWith, waitForOutput } from '../support/spawn.js';

/**
 * Secret references end to end: a connector registered while its variables
 * are unset fails preflight naming them; the same service restarted with
 * the variables set passes, and no value appears in any response or in any
 * line the restarted process logs (at debug level).
 */
describe('bridge: references resolve on the server, values never leave it', function () {
  this.timeout(90_000);
  const token = `crm-${randomBytes(18).toString('hex')}`;
  const write = `crmw-${randomBytes(18).toString('hex')}`;
  // env: references live on platform connectors, which only an operator (admin scope) registers and sees the state of.
  const connector = crmConnector('flow-crm', {
    platform: true,
    credential: { type: 'bearer', tokenRef: 'env:AWP_SECRET_FLOW_CRM_TOKEN' },
    scopes: [
      { actions: ['crm.read'], resources: ['contacts/*'] },
      { actions: ['crm.update'], resources: ['contacts/*/notes'], tokenRefs: ['env:AWP_SECRET_FLOW_CRM_WRITE'] },
    ],
  });
  let provider: http.Server;
  const received: string[] = [];
  before(async () => {
    provider = http.createServer((req, res) => {
      received.push(JSON.stringify(req.headers) + req.url);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    connector.endpoint = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/api`;
  });
  after(() => new Promise((resolve) => provider.close(resolve)));

  it('fails preflight naming the missing variables, then passes once the service restarts with them set', async () => {
    const a = await harness.account({ scopes: [...DEFAULT_SCOPES, 'admin'] });
    const responses: ApiResponse[] = [];
    const on = (base: string) => async (method: string, path: string, body?: unknown) => {
      const res = await harness.call(method, path, { token: a.token, ...(body === undefined ? {} : { body }) }, base);
      responses.push(res);
      return res;
    };
    const before = on(harness.url);
    assert.equal(
      (await before('POST', '/v1/bridge/connectors', connector)).status,
      201,
      'registration is not deployment: unset variables are accepted',
    );
    const missing = await before('POST', '/v1/bridge/connectors/flow-crm/preflight', {
      action: 'crm.update',
      resource: 'contacts/7/notes',
    });
    assert.equal(missing.body.status, 'needsSecret');
    assert.deepEqual(
      missing.body.errors.map((e: any) => e.variable),
      ['AWP_SECRET_FLOW_CRM_TOKEN', 'AWP_SECRET_FLOW_CRM_WRITE'],
    );
    assert.equal((await before('GET', '/v1/bridge/connectors/flow-crm')).body.connector.status, 'needsAttention');

    const child = spawnEntry('api/server.ts', {
      DATABASE_URL: harness.config.DATABASE_URL!,
      REDIS_URL: harness.config.REDIS_URL!,
      QUEUE_PREFIX: harness.config.QUEUE_PREFIX,
      LOG_LEVEL: 'debug',
      PORT: '0',
      HOST: '127.0.0.1',
      RATE_LIMIT_PER_MINUTE: '10000',
      AWP_ALLOW_PRIVATE_EGRESS: '1',
      AWP_SECRET_FLOW_CRM_TOKEN: token,
      AWP_SECRET_FLOW_CRM_WRITE: write,
    });
    try {
      await waitForOutput(child, (out) => out.includes('"msg":"started"'));
      const after = on(/"url":"(http:[^"]+)"/.exec(child.output())![1]!);
      const listed = (await after('GET', '/v1/bridge/connectors')).body.connectors.find(
        (c: any) => c.connectorId === 'flow-crm',
      );
      assert.deepEqual([listed.preflightReady, listed.notReady], [true, []]);
      const ready = await after('POST', '/v1/bridge/connectors/flow-crm/preflight', {
        action: 'crm.update',
        resource: 'contacts/7/notes',
        checkEndpoint: true,
      });
      assert.deepEqual([ready.body.ok, ready.body.status, ready.body.errors], [true, 'ready', []], ready.text);
      assert.equal(
        (await after('GET', '/v1/bridge/connectors/flow-crm')).body.connector.status,
        'active',
        'a passing preflight clears needsAttention',
      );
      const session = await after('POST', '/v1/bridge/connection-sessions', {
        connectorId: 'flow-crm',
        actions: ['crm.read'],
      });
      assert.equal(
        (
          await after('POST', '/v1/bridge/connectors/flow-crm/preflight', {
            action: 'crm.read',
            resource: 'contacts/7',
            sessionId: session.body.session.sessionId,
          })
        ).body.status,
        'ready',
      );
      await after('POST', '/v1/bridge/connectors/match', {
        capability: 'crm.update',
        tokenRef: 'env:AWP_SECRET_FLOW_CRM_WRITE',
      });
      await after('POST', '/v1/security/policy/evaluate', {
        domain: 'bridge',
        action: 'crm.read',
        connectorId: 'flow-crm',
      });
      assert.equal(
        (
          await after(
            'POST',
            '/v1/bridge/connectors',
            crmConnector('flow-literal', { credential: { type: 'bearer', tokenRef: LITERAL } }),
          )
        ).status,
        400,
      );
      assert.equal(
        (
          await after('POST', '/v1/bridge/connectors/flow-crm/update', {
            credential: { type: 'bearer', tokenRef: 'env:AWP_SECRET_FLOW_CRM_TOKEN' },
          })
        ).status,
        200,
      );
    } finally {
      assert.equal(await stopWith(child, 'SIGTERM'), 0, child.output());
    }
    const logged = child.output();
    assert.ok(logged.split('\n').filter((l) => l.includes('"msg":"request"')).length >= 8, 'the requests were logged');
    for (const value of [token, write, LITERAL]) {
      assert.ok(!responses.some((r) => r.text.includes(value)), 'no value in any response');
      assert.ok(!logged.includes(value), 'no value in any log line');
    }
    assert.ok(!received.some((r) => r.includes(token) || r.includes(write)), 'the endpoint check sends no credential');
  });
});
