import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';

/**
 * The credential vault's routes (success, 400, 401, 404, cross-account) and
 * the promise behind them: a value goes in once and comes out only in the
 * header of a call the service makes for the owning account.
 */

interface Seen {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A provider that records every request; /token answers an OAuth2 token. */
async function provider() {
  const seen: Seen[] = [];
  let tokens = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url === '/token') {
        tokens += 1;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: `at-${tokens}-${randomBytes(8).toString('hex')}`, expires_in: 3600 }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, tokenCalls: () => tokens, close: () => new Promise((r) => server.close(r)) };
}

const secret = (label: string) => `${label}-${randomBytes(16).toString('hex')}`;

describe('credential vault', function () {
  this.timeout(30_000);
  let a: { token: string; accountId: string };
  let b: { token: string; accountId: string };
  let p: Awaited<ReturnType<typeof provider>>;
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    p = await provider();
  });
  after(() => p.close());
  const call = (method: string, path: string, body?: unknown, token = a.token) =>
    harness.call(method, path, { token, ...(body === undefined ? {} : { body }) });

  async function hosted(token: string, connectorId: string, tokenRef: string, type = 'bearer') {
    const made = await call(
      'POST',
      '/v1/bridge/connectors',
      {
        connectorId,
        kind: 'custom',
        caps: ['crm.update'],
        endpoint: `${p.url}/${connectorId}`,
        credential: { type, tokenRef },
      },
      token,
    );
    assert.equal(made.status, 201, made.text);
  }
  async function runAction(token: string, connectorId: string) {
    const res = await call(
      'POST',
      '/v1/bridge/actions',
      { connectorId, capability: 'crm.update', input: { n: 1 } },
      token,
    );
    if (res.status !== 201) return res;
    return until(
      () => call('GET', `/v1/bridge/actions/${res.body.action.actionId}`, undefined, token),
      (r) => ['succeeded', 'failed'].includes(r.body.action.status),
    );
  }

  it('creates (201), lists, fetches: never the value; rotates with a grace version; disables; deletes', async () => {
    const value = secret('crm');
    const made = await call('POST', '/v1/bridge/credentials', {
      name: 'crm-token',
      kind: 'bearer',
      value,
      metadata: { owner: 'sales' },
    });
    assert.equal(made.status, 201, made.text);
    const c = made.body.credential;
    assert.deepEqual(
      [c.name, c.kind, c.status, c.ref, c.currentVersion, c.lastUsedAt, c.metadata],
      ['crm-token', 'bearer', 'active', 'cred:crm-token', 1, null, { owner: 'sales' }],
    );
    assert.ok(!made.text.includes(value));
    const list = await call('GET', '/v1/bridge/credentials');
    assert.ok(list.body.credentials.some((x: any) => x.name === 'crm-token') && !list.text.includes(value));
    const one = await call('GET', '/v1/bridge/credentials/crm-token');
    assert.deepEqual(one.body.credential, c);

    const next = secret('crm2');
    const rotated = await call('POST', '/v1/bridge/credentials/crm-token/rotate', { value: next });
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(rotated.body.credential.currentVersion, 2);
    assert.deepEqual(
      rotated.body.credential.versions.map((v: any) => [v.version, v.expiresAt === null]),
      [
        [2, true],
        [1, false],
      ],
    );
    assert.ok(!rotated.text.includes(next) && !rotated.text.includes(value));

    await hosted(a.token, 'crm-rot', 'cred:crm-token');
    await hosted(a.token, 'crm-rot-v1', 'cred:crm-token@1');
    assert.equal((await runAction(a.token, 'crm-rot')).body.action.status, 'succeeded');
    assert.equal((await runAction(a.token, 'crm-rot-v1')).body.action.status, 'succeeded');
    assert.equal(p.seen.find((s) => s.path === '/crm-rot')!.headers.authorization, `Bearer ${next}`);
    assert.equal(
      p.seen.find((s) => s.path === '/crm-rot-v1')!.headers.authorization,
      `Bearer ${value}`,
      'the previous version within its grace period',
    );
    assert.ok((await call('GET', '/v1/bridge/credentials/crm-token')).body.credential.lastUsedAt);

    const off = await call('POST', '/v1/bridge/credentials/crm-token/disable', { reason: 'leaked' });
    assert.equal(off.body.credential.status, 'disabled');
    const refused = await call('POST', '/v1/bridge/actions', { connectorId: 'crm-rot', capability: 'crm.update' });
    assert.equal(refused.status, 422);
    assert.match(refused.body.message, /cred:crm-token is not available in this account/);
    assert.equal((await call('POST', '/v1/bridge/credentials/crm-token/enable', {})).body.credential.status, 'active');
    assert.deepEqual((await call('DELETE', '/v1/bridge/credentials/crm-token')).body, { ok: true });
    assert.equal((await call('GET', '/v1/bridge/credentials/crm-token')).status, 404);

    const audit = await call('GET', '/v1/audit/log?action=credential.*&limit=50');
    assert.equal(audit.status, 200, audit.text);
    const actions = audit.body.entries.map((e: any) => e.action);
    for (const want of [
      'credential.created',
      'credential.rotated',
      'credential.resolved',
      'credential.disabled',
      'credential.deleted',
    ])
      assert.ok(actions.includes(want), want);
    assert.ok(!audit.text.includes(value) && !audit.text.includes(next), 'the audit log never holds a value');
  });

  it(
    '400 for bad bodies (never echoing the value), 409 for a taken name, 401 without a token, 403 without ' +
      'bridge:write',
    async () => {
      const value = secret('bad');
      const cases: Array<[unknown, RegExp]> = [
        [{ name: 'x y', kind: 'apiKey', value }, /name/],
        [{ name: 'x', kind: 'carrierPigeon', value }, /kind/],
        [{ name: 'x', kind: 'apiKey' }, /value/],
        [{ name: 'x', kind: 'basic', value }, /basic credential's value is an object/],
        [{ name: 'x', kind: 'bearer', value: { token: value } }, /bearer credential's value is a string/],
        [
          { name: 'x', kind: 'oauth2ClientCredentials', value: { clientId: 'c', clientSecret: value } },
          /oauth2ClientCredentials/,
        ],
        [{ name: 'x', kind: 'totpSeed', value: `${value}!` }, /totpSeed/],
      ];
      for (const [body, message] of cases) {
        const res = await call('POST', '/v1/bridge/credentials', body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.match(res.body.message, message);
        assert.ok(!res.text.includes(value), 'the value is never echoed');
      }
      assert.equal((await call('POST', '/v1/bridge/credentials', { name: 'dup', kind: 'apiKey', value })).status, 201);
      const dup = await call('POST', '/v1/bridge/credentials', { name: 'dup', kind: 'apiKey', value });
      assert.equal(dup.status, 409);
      assert.equal((await call('POST', '/v1/bridge/credentials/dup/rotate', { value: { nope: true } })).status, 400);
      assert.equal((await harness.call('GET', '/v1/bridge/credentials')).status, 401);
      assert.equal(
        (await harness.call('POST', '/v1/bridge/credentials', { body: { name: 'x', kind: 'apiKey', value } })).status,
        401,
      );
      assert.equal((await harness.call('DELETE', '/v1/bridge/credentials/dup')).status, 401);
      const readOnly = await harness.account({ scopes: ['bridge:read'] });
      assert.equal(
        (await call('POST', '/v1/bridge/credentials', { name: 'x', kind: 'apiKey', value }, readOnly.token)).status,
        403,
      );
    },
  );

  it("404 for an unknown name and for another account's credential, on every route", async () => {
    assert.equal(
      (await call('POST', '/v1/bridge/credentials', { name: 'a-only', kind: 'apiKey', value: secret('a') })).status,
      201,
    );
    for (const [name, token] of [
      ['nope', a.token],
      ['a-only', b.token],
    ] as const) {
      assert.equal((await call('GET', `/v1/bridge/credentials/${name}`, undefined, token)).status, 404);
      assert.equal(
        (await call('POST', `/v1/bridge/credentials/${name}/rotate`, { value: 'x-value-1' }, token)).status,
        404,
      );
      assert.equal((await call('POST', `/v1/bridge/credentials/${name}/disable`, {}, token)).status, 404);
      assert.equal((await call('POST', `/v1/bridge/credentials/${name}/enable`, {}, token)).status, 404);
      assert.equal((await call('DELETE', `/v1/bridge/credentials/${name}`, undefined, token)).status, 404);
    }
    assert.ok(
      !(await call('GET', '/v1/bridge/credentials', undefined, b.token)).body.credentials.some(
        (c: any) => c.name === 'a-only',
      ),
    );
    assert.equal(
      (await call('GET', '/v1/bridge/credentials/a-only')).body.credential.status,
      'active',
      'another account changed nothing',
    );
  });

  it(
    "another account's cred: reference fails exactly as a missing one: preflight, hosted action, portal " +
      'session, tool call',
    async () => {
      const value = secret('a-private');
      assert.equal(
        (await call('POST', '/v1/bridge/credentials', { name: 'a-private', kind: 'bearer', value })).status,
        201,
      );
      await hosted(b.token, 'steal', 'cred:a-private');
      await hosted(b.token, 'missing', 'cred:never-stored');
      const pre = async (id: string) =>
        (await call('POST', `/v1/bridge/connectors/${id}/preflight`, { action: 'crm.update' }, b.token)).body;
      const [steal, missing] = [await pre('steal'), await pre('missing')];
      assert.equal(steal.status, 'needsSecret');
      assert.equal(
        steal.errors[0].message.replace('a-private', 'X'),
        missing.errors[0].message.replace('never-stored', 'X'),
      );
      const act = async (id: string) =>
        call('POST', '/v1/bridge/actions', { connectorId: id, capability: 'crm.update' }, b.token);
      const [s, m] = [await act('steal'), await act('missing')];
      assert.deepEqual([s.status, m.status], [422, 422]);
      assert.equal(s.body.message.replace('a-private', 'X'), m.body.message.replace('never-stored', 'X'));
      const portal = (ref: string) =>
        call('POST', '/v1/bridge/portal/sessions', { targetOrigin: p.url, credentials: { passwordRef: ref } }, b.token);
      const ps = await portal('cred:a-private');
      const pm = await portal('cred:never-stored');
      assert.deepEqual([ps.status, pm.status], [201, 201], ps.text);
      const pf = async (id: string) =>
        (await call('POST', `/v1/bridge/portal/sessions/${id}/preflight`, {}, b.token)).body;
      const [pfs, pfm] = [await pf(ps.body.session.portalSessionId), await pf(pm.body.session.portalSessionId)];
      assert.equal(pfs.status, 'credentialsMissing');
      assert.equal(pfs.errors[0].message.replace('a-private', 'X'), pfm.errors[0].message.replace('never-stored', 'X'));
      assert.ok(!p.seen.some((x) => JSON.stringify(x).includes(value)), "the value never reached B's endpoint");
    },
  );

  it(
    'env: references: refused on tenant connectors, portal sessions and tool calls; secrets/check, preflight ' +
      'and match tell tenants nothing about the environment',
    async () => {
      process.env.AWP_SECRET_VAULT_TEST_SET = secret('env');
      const tenant = await call('POST', '/v1/bridge/connectors', {
        connectorId: 'env-t',
        kind: 'custom',
        caps: ['crm.update'],
        endpoint: `${p.url}/x`,
        credential: { type: 'bearer', tokenRef: 'env:AWP_SECRET_VAULT_TEST_SET' },
      });
      assert.equal(tenant.status, 400);
      assert.equal(tenant.body.details.problems[0].problem, 'envNotAllowed');
      const portal = await call('POST', '/v1/bridge/portal/sessions', {
        targetOrigin: p.url,
        credentials: { passwordRef: 'env:AWP_SECRET_VAULT_TEST_SET' },
      });
      assert.equal(portal.status, 400);
      const check = async (token: string) =>
        (
          await call(
            'POST',
            '/v1/security/secrets/check',
            {
              refs: [
                { name: 'set', ref: 'env:AWP_SECRET_VAULT_TEST_SET' },
                { name: 'unset', ref: 'env:AWP_SECRET_VAULT_TEST_UNSET' },
              ],
            },
            token,
          )
        ).body;
      const t = await check(a.token);
      assert.deepEqual(
        t.results.map((r: any) => r.status),
        ['outOfBounds', 'outOfBounds'],
      );
      assert.equal(t.results[0].message, t.results[1].message, 'set and unset read the same');

      const admin = await harness.account({ scopes: ['bridge:read', 'bridge:write', 'tools:use', 'admin'] });
      const op = await check(admin.token);
      assert.deepEqual(
        op.results.map((r: any) => r.status),
        ['resolvable', 'missing'],
        'operators see the environment',
      );
      const platform = (connectorId: string, variable: string) =>
        call(
          'POST',
          '/v1/bridge/connectors',
          {
            connectorId,
            kind: 'custom',
            caps: ['crm.update'],
            endpoint: `${p.url}/${connectorId}`,
            platform: true,
            credential: { type: 'bearer', tokenRef: `env:${variable}` },
          },
          admin.token,
        );
      assert.equal((await platform('plat-set', 'AWP_SECRET_VAULT_TEST_SET')).status, 201);
      assert.equal((await platform('plat-unset', 'AWP_SECRET_VAULT_TEST_UNSET')).status, 201);
      const asTenant = {
        connectorId: 'x',
        kind: 'custom',
        caps: ['crm.update'],
        endpoint: `${p.url}/x`,
        platform: true,
      };
      assert.equal(
        (await call('POST', '/v1/bridge/connectors', asTenant)).status,
        403,
        'only operators register platform connectors',
      );
      const views = await Promise.all(
        ['plat-set', 'plat-unset'].map(
          async (id) => (await call('GET', `/v1/bridge/connectors/${id}`, undefined, b.token)).body.connector,
        ),
      );
      assert.deepEqual(
        views.map((v) => [v.platform, v.preflightReady]),
        [
          [true, true],
          [true, true],
        ],
        'a tenant cannot tell set from unset',
      );
      const pre = await Promise.all(
        ['plat-set', 'plat-unset'].map(
          async (id) =>
            (await call('POST', `/v1/bridge/connectors/${id}/preflight`, { action: 'crm.update' }, b.token)).body,
        ),
      );
      assert.deepEqual(
        pre.map((x) => x.status),
        ['ready', 'ready'],
      );
      const match = (await call('POST', '/v1/bridge/connectors/match', { capability: 'crm.update' }, b.token)).body
        .matches;
      const secrets = (id: string) =>
        match.find((m: any) => m.connectorId === id).reasons.find((r: any) => r.criterion === 'secrets');
      assert.deepEqual(secrets('plat-set'), secrets('plat-unset'));
      assert.equal(
        (await call('POST', '/v1/bridge/connectors/plat-set/update', { status: 'disabled' }, b.token)).status,
        403,
      );
      const used = await runAction(b.token, 'plat-set');
      assert.equal(used.body.action.status, 'succeeded', 'a platform connector serves every account');
      const failed = await call('POST', '/v1/tools/map', {
        query: 'pharmacy',
        placesProviderApiKey: 'env:AWP_SECRET_VAULT_TEST_SET',
      });
      assert.ok(
        [400, 422].includes(failed.status) && !failed.text.includes(process.env.AWP_SECRET_VAULT_TEST_SET!),
        failed.text,
      );
      delete process.env.AWP_SECRET_VAULT_TEST_SET;
      // Platform connectors are every account's: remove them so other test files' listings stay their own.
      for (const id of ['plat-set', 'plat-unset'])
        assert.equal((await call('DELETE', `/v1/bridge/connectors/${id}`, undefined, admin.token)).status, 200);
    },
  );

  it(
    'basic and OAuth2 client-credentials values reach the provider as headers; the token is fetched once and ' +
      'cached',
    async () => {
      const password = secret('pw');
      assert.equal(
        (
          await call('POST', '/v1/bridge/credentials', {
            name: 'basic-1',
            kind: 'basic',
            value: { username: 'svc', password },
          })
        ).status,
        201,
      );
      await hosted(a.token, 'basic-con', 'cred:basic-1', 'basic');
      assert.equal((await runAction(a.token, 'basic-con')).body.action.status, 'succeeded');
      assert.equal(
        p.seen.find((s) => s.path === '/basic-con')!.headers.authorization,
        `Basic ${Buffer.from(`svc:${password}`).toString('base64')}`,
      );

      const clientSecret = secret('cs');
      const oauth = { tokenUrl: `${p.url}/token`, clientId: 'awp', clientSecret, scope: 'crm' };
      const made = await call('POST', '/v1/bridge/credentials', {
        name: 'oauth-1',
        kind: 'oauth2ClientCredentials',
        value: oauth,
      });
      assert.equal(made.status, 201, made.text);
      await hosted(a.token, 'oauth-con', 'cred:oauth-1', 'oauth2');
      const before = p.tokenCalls();
      const done = await Promise.all([
        runAction(a.token, 'oauth-con'),
        runAction(a.token, 'oauth-con'),
        runAction(a.token, 'oauth-con'),
      ]);
      assert.deepEqual(
        done.map((d) => d.body.action.status),
        ['succeeded', 'succeeded', 'succeeded'],
      );
      assert.equal(p.tokenCalls() - before, 1, 'one token fetch across concurrent actions');
      const tokenRequest = p.seen.find((s) => s.path === '/token')!;
      assert.match(tokenRequest.body, /grant_type=client_credentials/);
      const auth = p.seen.filter((s) => s.path === '/oauth-con').map((s) => s.headers.authorization);
      assert.equal(new Set(auth).size, 1);
      assert.match(auth[0]!, /^Bearer at-\d+-/);
      const actions = await call('GET', '/v1/bridge/actions?connectorId=oauth-con');
      assert.ok(
        !actions.text.includes(auth[0]!.slice(7)) && !actions.text.includes(clientSecret),
        'no answer carries the token or the secret',
      );
    },
  );
});
