import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { crmConnector } from '../support/bridge.js';
import { harness } from '../support/harness.js';

describe('bridge connector preflight', () => {
  let a: { token: string };
  let b: { token: string };
  let server: http.Server;
  let endpoint: string;
  const seen: http.IncomingHttpHeaders[] = [];
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    server = http.createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(404).end('no such page');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
    const reg = await harness.call('POST', '/v1/bridge/connectors', {
      token: a.token,
      body: crmConnector('pf-crm', { caps: ['crm.read', 'crm.update', 'payments.settle'], endpoint }),
    });
    assert.equal(reg.status, 201, reg.text);
  });
  after(() => new Promise((resolve) => server.close(resolve)));
  const preflight = (body: unknown, id = 'pf-crm', token = a.token) =>
    harness.call('POST', `/v1/bridge/connectors/${id}/preflight`, { token, body });

  it(
    'names the missing credential (needsSecret) without any value, and marks an active connector as needing ' +
      'attention',
    async () => {
      const res = await preflight({ action: 'crm.read', resource: 'contacts/42' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        [res.body.ok, res.body.status, res.body.connectorId, res.body.action, res.body.resource],
        [false, 'needsSecret', 'pf-crm', 'crm.read', 'contacts/42'],
      );
      assert.deepEqual(res.body.errors, [
        {
          check: 'secret',
          message: 'cred:test-crm-token is not available in this account',
          ref: 'cred:test-crm-token',
          variable: 'test-crm-token',
        },
      ]);
      assert.deepEqual(
        res.body.checks.map((c: any) => [c.check, c.passed]),
        [
          ['status', true],
          ['capability', true],
          ['policy', true],
          ['scope', true],
          ['secret', false],
        ],
      );
      const c = (await harness.call('GET', '/v1/bridge/connectors/pf-crm', { token: a.token })).body.connector;
      assert.equal(c.status, 'needsAttention');
      assert.match(c.statusReason, /cred:test-crm-token not resolvable/);
      assert.deepEqual(
        [c.lastPreflight.action, c.lastPreflight.resource, c.lastPreflight.status],
        ['crm.read', 'contacts/42', 'needsSecret'],
      );
    },
  );

  it('uses only the references of the scopes that cover the action', async () => {
    const res = await preflight({ action: 'crm.update', resource: 'contacts/42/notes' });
    assert.deepEqual(
      res.body.errors.map((e: any) => e.variable),
      ['test-crm-token', 'test-crm-write'],
    );
  });

  it('names an out-of-scope resource (blocked)', async () => {
    const res = await preflight({ action: 'crm.read', resource: 'deals/7' });
    assert.equal(res.body.status, 'blocked');
    const scope = res.body.errors.find((e: any) => e.check === 'scope');
    assert.deepEqual(scope, {
      check: 'scope',
      message: 'no scope of connector pf-crm covers crm.read on deals/7',
      capability: 'crm.read',
      resource: 'deals/7',
    });
  });

  it('names a capability the policy denies, and one the connector lacks (blocked)', async () => {
    const denied = await preflight({ action: 'payments.settle' });
    assert.equal(denied.body.status, 'blocked');
    const policy = denied.body.errors.find((e: any) => e.check === 'policy');
    assert.deepEqual([policy.capability, policy.rule], ['payments.settle', 'bridge.deny.money']);
    assert.match(policy.message, /payments.settle is denied: money moves only through the pay domain/);
    const lacking = await preflight({ action: 'tickets.create' });
    assert.deepEqual(
      lacking.body.errors.find((e: any) => e.check === 'capability'),
      {
        check: 'capability',
        message: 'connector pf-crm does not have tickets.create (its caps: crm.read, crm.update, payments.settle)',
        capability: 'tickets.create',
      },
    );
  });

  it(
    'checks the endpoint only when asked, without sending a credential; an endpoint that does not answer is ' + 'named',
    async () => {
      const before = seen.length;
      await preflight({ action: 'crm.read' });
      assert.equal(seen.length, before, 'no call without checkEndpoint');
      const res = await preflight({ action: 'crm.read', checkEndpoint: true });
      assert.deepEqual(res.body.checks.at(-1), { check: 'endpoint', passed: true, detail: 'answered HTTP 404' });
      assert.equal(seen.length, before + 1);
      assert.equal(seen.at(-1)!.authorization, undefined);
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const { token } = await harness.account();
      await harness.call('POST', '/v1/bridge/connectors', {
        token,
        body: {
          connectorId: 'gone',
          kind: 'webhook',
          caps: ['webhook.post'],
          endpoint: `http://127.0.0.1:${port}/hook`,
        },
      });
      const gone = await harness.call('POST', '/v1/bridge/connectors/gone/preflight', {
        token,
        body: { action: 'webhook.post', checkEndpoint: true },
      });
      assert.equal(gone.body.status, 'unreachable');
      assert.deepEqual(gone.body.errors, [
        { check: 'endpoint', message: 'could not reach the endpoint (ECONNREFUSED)' },
      ]);
    },
  );

  it('a disabled connector is blocked and stays disabled; a connector with nothing missing is ready', async () => {
    const { token } = await harness.account();
    await harness.call('POST', '/v1/bridge/connectors', {
      token,
      body: {
        connectorId: 'hook',
        kind: 'webhook',
        caps: ['webhook.post'],
        endpoint: 'bridge://client/hook',
        scopes: [{ actions: ['webhook.post'], resources: ['orders/*'] }],
      },
    });
    const ready = await harness.call('POST', '/v1/bridge/connectors/hook/preflight', {
      token,
      body: { action: 'webhook.post', resource: 'orders/9', checkEndpoint: true },
    });
    assert.deepEqual([ready.body.ok, ready.body.status, ready.body.errors], [true, 'ready', []]);
    assert.match(ready.body.checks.at(-1).detail, /client-hosted adapter/);
    await harness.call('POST', '/v1/bridge/connectors/hook/update', { token, body: { status: 'disabled' } });
    const blocked = await harness.call('POST', '/v1/bridge/connectors/hook/preflight', {
      token,
      body: { action: 'webhook.post', resource: 'orders/9' },
    });
    assert.deepEqual(
      [blocked.body.status, blocked.body.errors[0]],
      ['blocked', { check: 'status', message: 'connector hook is disabled' }],
    );
    assert.equal(
      (await harness.call('GET', '/v1/bridge/connectors/hook', { token })).body.connector.status,
      'disabled',
    );
  });

  it("400 for a bad body, 401 without a token, 404 for an unknown connector and another account's", async () => {
    assert.equal((await preflight({})).status, 400);
    assert.equal((await preflight({ action: 'read everything' })).status, 400);
    assert.equal((await preflight({ action: 'crm.read', resource: '../etc' })).status, 400);
    assert.equal((await preflight({ action: 'crm.read', checkEndpoint: 'yes' })).status, 400);
    assert.equal(
      (await harness.call('POST', '/v1/bridge/connectors/pf-crm/preflight', { body: { action: 'crm.read' } })).status,
      401,
    );
    assert.equal((await preflight({ action: 'crm.read' }, 'nope')).status, 404);
    assert.equal((await preflight({ action: 'crm.read' }, 'pf-crm', b.token)).status, 404);
  });
});
