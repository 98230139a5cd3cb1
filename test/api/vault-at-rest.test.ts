import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cachedDataKeys, forgetDataKeys, open, rotateMasterKey, seal, VaultError } from '../../shared/vault/index.js';
import { harness } from '../support/harness.js';
import { startReceiver, until } from '../support/receiver.js';

/**
 * Secrets at rest: a dump of every table in the public schema holds none of
 * the planted values (vault values of every kind, a webhook secret, a
 * connector signing secret, a portal password, the signing key's private
 * half); a master key rotation re-wraps data keys and every secret stays usable.
 */

const hex = (n = 16) => randomBytes(n).toString('hex');
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const base32 = (n: number) => Array.from(randomBytes(n), (b) => BASE32[b % 32]).join('');

async function dumpDatabase(): Promise<string> {
  const { rows } = await harness.deps.db.raw(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const parts: string[] = [];
  for (const { table_name: table } of rows as Array<{ table_name: string }>) {
    const dump = await harness.deps.db.raw(`SELECT row_to_json(t)::text AS j FROM "${table}" t`);
    parts.push(...(dump.rows as Array<{ j: string }>).map((r) => r.j));
  }
  return parts.join('\n');
}

describe('secrets at rest', function () {
  this.timeout(40_000);
  let a: { token: string; accountId: string };
  const seen: string[] = [];
  let server: http.Server;
  let url: string;
  before(async () => {
    a = await harness.account();
    server = http.createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));
  const call = (method: string, path: string, body?: unknown) =>
    harness.call(method, path, { token: a.token, ...(body === undefined ? {} : { body }) });

  const pem = String(
    generateKeyPairSync('ed25519', {
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    }).privateKey,
  );
  const planted = {
    apiKey: `ak-${hex()}`,
    bearer: `bt-${hex()}`,
    password: `pw-${hex()}`,
    totpSeed: base32(32),
    privateKey: pem,
    basicPassword: `bp-${hex()}`,
    clientSecret: `cs-${hex()}`,
    refreshToken: `rt-${hex()}`,
    webhook: `whsec_${randomBytes(24).toString('base64')}`,
    signing: `whsec_${randomBytes(24).toString('base64')}`,
  };

  it('a dump of every table holds no planted secret: only ciphertext with its key id', async () => {
    const values: Array<[string, string, unknown]> = [
      ['k-api', 'apiKey', planted.apiKey],
      ['k-bearer', 'bearer', planted.bearer],
      ['k-password', 'password', planted.password],
      ['k-totp', 'totpSeed', planted.totpSeed],
      ['k-pem', 'privateKey', planted.privateKey],
      ['k-basic', 'basic', { username: 'svc', password: planted.basicPassword }],
      [
        'k-cc',
        'oauth2ClientCredentials',
        { tokenUrl: `${url}/token`, clientId: 'c', clientSecret: planted.clientSecret },
      ],
      ['k-rt', 'oauth2RefreshToken', { tokenUrl: `${url}/token`, clientId: 'c', refreshToken: planted.refreshToken }],
    ];
    for (const [name, kind, value] of values)
      assert.equal((await call('POST', '/v1/bridge/credentials', { name, kind, value })).status, 201, name);
    const portal = await call('POST', '/v1/bridge/portal/sessions', {
      targetOrigin: url,
      credentials: { usernameRef: 'cred:k-api', passwordRef: 'cred:k-password', totpSeedRef: 'cred:k-totp' },
      mfaMethod: 'totp',
    });
    assert.equal(portal.status, 201, portal.text);
    const sub = await call('POST', '/v1/event-subscriptions', {
      endpoint: `${url}/hook`,
      events: ['vault.test'],
      secret: planted.webhook,
    });
    assert.equal(sub.status, 201, sub.text);
    const con = await call('POST', '/v1/bridge/connectors', {
      connectorId: 'sealed',
      kind: 'custom',
      caps: ['crm.update'],
      endpoint: `${url}/sealed`,
      credential: { type: 'bearer', tokenRef: 'cred:k-bearer' },
      signingSecret: planted.signing,
    });
    assert.equal(con.status, 201, con.text);
    assert.equal((await harness.call('GET', '/.well-known/jwks.json')).status, 200); // makes sure a signing key exists
    const key = await harness.deps.db('signing_keys').whereNull('retired_at').first();
    const privateHalf = await open(harness.deps, key.private_key);
    assert.match(privateHalf, /BEGIN PRIVATE KEY/);

    const dump = await dumpDatabase();
    const pemBody = (p: string) =>
      p
        .split('\n')
        .filter((l) => l && !l.startsWith('-----'))
        .join('');
    const searched = {
      ...planted,
      privateKey: pemBody(planted.privateKey),
      signingKeyPrivateHalf: pemBody(privateHalf),
      webhookKey: planted.webhook.slice(6),
      signingKey: planted.signing.slice(6),
    };
    for (const [label, value] of Object.entries(searched))
      assert.ok(!dump.includes(value), `${label} is in the database in plain text`);
    assert.match(dump, /awpv1:dk_/, 'values are stored sealed, naming their data key');
  });

  it(
    'master key rotation re-wraps data keys; every secret stays usable: a hosted action gets its credential, a ' +
      'webhook verifies',
    async () => {
      const K1 = harness.config.AWP_MASTER_KEY!;
      const K2 = randomBytes(32).toString('base64');
      const rx = await startReceiver(() => [planted.webhook]);
      try {
        const sub = await call('POST', '/v1/event-subscriptions', {
          endpoint: rx.url,
          events: ['vault.rotated'],
          secret: planted.webhook,
        });
        assert.equal(sub.status, 201, sub.text);
        const before = await harness.deps.db('vault_data_keys').select('id', 'wrapped');
        const { rewrapped } = await rotateMasterKey(harness.deps.db, K1, K2);
        assert.ok(rewrapped >= 2, "the account's and the platform's data keys");
        const after = await harness.deps.db('vault_data_keys').select('id', 'wrapped');
        assert.ok(
          after.every((r: any) => !before.some((b: any) => b.id === r.id && b.wrapped === r.wrapped)),
          'every data key re-wrapped',
        );
        forgetDataKeys();
        const row = await harness.deps.db('subscriptions').where({ id: sub.body.subscription.subscriptionId }).first();
        await assert.rejects(
          open({ db: harness.deps.db, config: { AWP_MASTER_KEY: K1 } }, row.secret),
          VaultError,
          'the old master key no longer opens anything',
        );
        // A process given the new key (and the old one as previous, during the switch) opens every value as it was.
        const fresh = { db: harness.deps.db, config: { AWP_MASTER_KEY: K2, AWP_MASTER_KEY_PREVIOUS: K1 } };
        assert.equal(await open(fresh, row.secret), planted.webhook);
        const cred = await harness.deps
          .db('credential_versions as v')
          .join('credentials as c', 'c.id', 'v.credential_id')
          .where({ 'c.account_id': a.accountId, 'c.name': 'k-bearer' })
          .first('v.sealed_value');
        assert.equal(await open(fresh, cred.sealed_value), planted.bearer);
        const platformKey = await harness.deps.db('signing_keys').whereNull('retired_at').first();
        assert.match(await open(fresh, platformKey.private_key), /BEGIN PRIVATE KEY/);

        // The running service (its data keys now unwrapped by the new master key) keeps working.
        const action = await call('POST', '/v1/bridge/actions', { connectorId: 'sealed', capability: 'crm.update' });
        assert.equal(action.status, 201, action.text);
        const done = await until(
          () => call('GET', `/v1/bridge/actions/${action.body.action.actionId}`),
          (r) => ['succeeded', 'failed'].includes(r.body.action.status),
        );
        assert.equal(done.body.action.status, 'succeeded', done.text);
        assert.ok(seen.includes(`Bearer ${planted.bearer}`));
        assert.equal((await call('POST', '/v1/events', { type: 'vault.rotated', payload: {} })).status, 201);
        const got = await until(
          () => rx.received,
          (r) => r.length > 0,
        );
        assert.deepEqual(got[0]!.verifiedWith, [planted.webhook]);
      } finally {
        await rx.stop();
        // Back to the harness's key, so later test files open what they seal.
        await rotateMasterKey(harness.deps.db, K2, K1);
      }
    },
  );
});

describe('unwrapped data keys stay bounded', () => {
  after(() => forgetDataKeys());

  it('a process keeps the most recently used, and opens what a forgotten key sealed by reading it again', async () => {
    const vault = { db: harness.deps.db, config: harness.config };
    forgetDataKeys(3);
    const owners = Array.from({ length: 6 }, () => `owner_${hex(6)}`);
    const sealed: string[] = [];
    for (const owner of owners) sealed.push(await seal(vault, owner, `value of ${owner}`));
    assert.deepEqual(cachedDataKeys(harness.deps.db), { keys: 3, owners: 3 });
    assert.equal(await open(vault, sealed[0]!), `value of ${owners[0]}`, "the first owner's key was read again");
    assert.equal(cachedDataKeys(harness.deps.db).keys, 3);
  });
});
