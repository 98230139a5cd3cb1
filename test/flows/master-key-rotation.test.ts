import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { VAULT_UNAVAILABLE } from '../../api/middleware/errors.js';
import { rotateMasterKey } from '../../shared/vault/index.js';
import { harness } from '../support/harness.js';
import { startReceiver, until } from '../support/receiver.js';
import { spawnEntry, stopWith, waitForOutput } from '../support/spawn.js';

type Child = ReturnType<typeof spawnEntry>;

/**
 * `npm run master-key:rotate` across processes: the real CLI re-wraps the
 * data keys of the test database from the old master key to a new one and
 * leaves every sealed value byte for byte as it was. Processes started
 * afterwards with only the new key (an API, the domain workers, delivery)
 * open what was sealed before: a hosted bridge action reaches a local
 * endpoint with the stored bearer token, a webhook is signed with the stored
 * secret. An API started with only the old key opens nothing: a clear 503,
 * no plaintext, no internals, in its answers or its debug log.
 */

/** Every sealed column, by table and row id, as stored. */
async function sealedColumns(): Promise<Record<string, unknown>> {
  const db = harness.deps.db;
  const pick = async (table: string, keys: string[], cols: string[]) =>
    db(table)
      .select(...keys, ...cols)
      .orderBy(keys);
  return {
    credentialVersions: await pick('credential_versions', ['credential_id', 'version'], ['sealed_value']),
    subscriptions: await pick('subscriptions', ['id'], ['secret', 'previous_secret']),
    connectors: await pick('connectors', ['id'], ['signing_secret']),
    signingKeys: await pick('signing_keys', ['kid'], ['private_key']),
  };
}

async function exitOf(child: Child, ms = 60_000): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return code;
}

describe('master key rotation across processes (the real CLI, then processes with one key each)', function () {
  this.timeout(180_000);
  const K1 = () => harness.config.AWP_MASTER_KEY!;
  const K2 = randomBytes(32).toString('base64');
  const bearer = `bt-${randomBytes(16).toString('hex')}`;
  const whsec = `whsec_${randomBytes(24).toString('base64')}`;
  const seen: string[] = [];
  let a: { token: string; accountId: string };
  let server: http.Server;
  let url: string;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let rotated = false;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-mk-'));
  const env = (key: string) => ({
    DATABASE_URL: harness.config.DATABASE_URL!,
    REDIS_URL: harness.config.REDIS_URL!,
    AWP_MASTER_KEY: key,
    QUEUE_PREFIX: `{awp-mk-${randomBytes(3).toString('hex')}}`,
    LOG_LEVEL: 'debug',
    RATE_LIMIT_PER_MINUTE: '10000',
    AWP_ALLOW_PRIVATE_EGRESS: '1',
    WEBHOOK_RETRY_SCHEDULE_MS: '100,200,200',
    DATA_DIR: dataDir,
  });

  before(async () => {
    a = await harness.account();
    server = http.createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    rx = await startReceiver(() => [whsec]);
    const call = (p: string, body: unknown) => harness.call('POST', p, { token: a.token, body });
    // Everything is sealed under the old key, by the harness's own process, before the rotation.
    assert.equal(
      (await call('/v1/bridge/credentials', { name: 'mk-bearer', kind: 'bearer', value: bearer })).status,
      201,
    );
    const con = await call('/v1/bridge/connectors', {
      connectorId: 'mk-con',
      kind: 'custom',
      caps: ['crm.update'],
      endpoint: `${url}/mk`,
      credential: { type: 'bearer', tokenRef: 'cred:mk-bearer' },
    });
    assert.equal(con.status, 201, con.text);
    const sub = await call('/v1/event-subscriptions', { endpoint: rx.url, events: ['mk.rotated'], secret: whsec });
    assert.equal(sub.status, 201, sub.text);
    assert.equal((await harness.call('GET', '/.well-known/jwks.json')).status, 200); // a signing key exists
  });
  after(async () => {
    // Back to the harness's key, so later test files open what they seal.
    if (rotated) await rotateMasterKey(harness.deps.db, K2, K1());
    await rx?.stop();
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('the CLI re-wraps every data key and leaves every sealed value byte-identical', async () => {
    const sealedBefore = await sealedColumns();
    const keysBefore = await harness.deps.db('vault_data_keys').select('id', 'wrapped', 'master_key_id').orderBy('id');
    assert.ok(keysBefore.length >= 2, "the account's and the platform's data keys at least");
    const cli = spawnEntry('scripts/rotate-master-key.ts', { ...env(K1()), AWP_MASTER_KEY_NEW: K2 });
    const code = await exitOf(cli);
    rotated = code === 0;
    assert.equal(code, 0, cli.output());
    const line = cli
      .output()
      .trim()
      .split('\n')
      .find((l) => l.startsWith('{"rewrapped"'))!;
    const out = JSON.parse(line);
    assert.equal(out.rewrapped, keysBefore.length);
    assert.equal(out.newMasterKey, undefined, 'a key it was given is not printed back');
    for (const k of [K1(), K2]) assert.ok(!cli.output().includes(k), 'no master key in the CLI output');

    assert.deepEqual(await sealedColumns(), sealedBefore, 'no sealed value changed');
    const keysAfter = await harness.deps.db('vault_data_keys').select('id', 'wrapped', 'master_key_id').orderBy('id');
    assert.deepEqual(
      keysAfter.map((k: any) => k.id),
      keysBefore.map((k: any) => k.id),
      'the same data keys',
    );
    for (const [i, k] of keysAfter.entries()) {
      assert.notEqual(k.wrapped, keysBefore[i].wrapped, `${k.id} re-wrapped`);
      assert.equal(k.master_key_id, out.masterKeyId, `${k.id} names the new master key`);
    }
    assert.ok(keysBefore.every((k: any) => k.master_key_id !== out.masterKeyId));
  });

  it('processes given only the new key open what was sealed before: a hosted action, a signed webhook', async () => {
    assert.ok(rotated, 'the rotation ran');
    const e = env(K2);
    const api = spawnEntry('api/server.ts', { ...e, PORT: '0', HOST: '127.0.0.1' });
    const worker = spawnEntry('workers/domains.ts', e);
    const delivery = spawnEntry('workers/delivery.ts', e);
    try {
      await waitForOutput(api, (o) => o.includes('"msg":"started"'), 60_000);
      await waitForOutput(worker, (o) => o.includes('domain workers started'), 60_000);
      await waitForOutput(delivery, (o) => o.includes('"msg":"started"'), 60_000);
      const base = /"url":"(http:[^"]+)"/.exec(api.output())![1]!;
      const call = (method: string, p: string, body?: unknown) =>
        harness.call(method, p, { token: a.token, ...(body === undefined ? {} : { body }) }, base);
      const action = await call('POST', '/v1/bridge/actions', { connectorId: 'mk-con', capability: 'crm.update' });
      assert.equal(action.status, 201, action.text);
      const done = await until(
        () => call('GET', `/v1/bridge/actions/${action.body.action.actionId}`),
        (r) => ['succeeded', 'failed'].includes(r.body.action?.status),
        60_000,
      );
      assert.equal(done.body.action.status, 'succeeded', done.text);
      assert.ok(seen.includes(`Bearer ${bearer}`), 'the stored bearer token reached the endpoint');
      assert.equal((await call('POST', '/v1/events', { type: 'mk.rotated', payload: {} })).status, 201);
      const got = await until(
        () => rx.received,
        (r) => r.length > 0,
        60_000,
      );
      assert.deepEqual(got[0]!.verifiedWith, [whsec], 'signed with the stored webhook secret');
    } finally {
      for (const child of [api, worker, delivery]) assert.equal(await stopWith(child, 'SIGTERM'), 0, child.output());
    }
    for (const child of [api, worker, delivery]) {
      for (const v of [bearer, whsec, whsec.slice(6), K2]) assert.ok(!child.output().includes(v), 'no secret logged');
    }
  });

  it('a process given only the old key opens no data key: a clear 503, no plaintext, no internals', async () => {
    assert.ok(rotated, 'the rotation ran');
    const fresh = await harness.account();
    const api = spawnEntry('api/server.ts', { ...env(K1()), PORT: '0', HOST: '127.0.0.1' });
    const answers: string[] = [];
    try {
      await waitForOutput(api, (o) => o.includes('"msg":"started"'), 60_000);
      const base = /"url":"(http:[^"]+)"/.exec(api.output())![1]!;
      const call = async (method: string, p: string, body: unknown) => {
        const res = await harness.call(method, p, { token: a.token, body }, base);
        answers.push(res.text);
        return res;
      };
      const refused = [
        await call('POST', '/v1/bridge/credentials', {
          name: 'mk-new',
          kind: 'apiKey',
          value: `ak-${randomBytes(8).toString('hex')}`,
        }),
        await call('POST', '/v1/bridge/credentials/mk-bearer/rotate', {
          value: `bt-${randomBytes(8).toString('hex')}`,
        }),
        await call('POST', '/v1/event-subscriptions', { endpoint: rx.url, events: ['mk.x'], secret: whsec }),
        // An account with no data key yet gets none wrapped by the retired key (it could never be opened later).
        await harness
          .call(
            'POST',
            '/v1/bridge/credentials',
            {
              token: fresh.token,
              body: { name: 'mk-fresh', kind: 'apiKey', value: `ak-${randomBytes(8).toString('hex')}` },
            },
            base,
          )
          .then((res) => (answers.push(res.text), res)),
      ];
      for (const res of refused) {
        assert.equal(res.status, 503, res.text);
        assert.deepEqual([res.body.ok, res.body.error, res.body.message], [false, 'unavailable', VAULT_UNAVAILABLE]);
        assert.ok(!/dk_|VaultError|wrapped/.test(res.text), `no internals: ${res.text}`);
      }
      const view = await call('GET', '/v1/bridge/credentials/mk-bearer', undefined);
      assert.equal(view.body.credential.currentVersion, 1, 'the refused rotation changed nothing');
    } finally {
      assert.equal(await stopWith(api, 'SIGTERM'), 0, api.output());
    }
    assert.ok(/"msg":"request failed"/.test(api.output()), 'the operator finds the cause in the log');
    for (const v of [bearer, whsec, whsec.slice(6), K1(), K2]) {
      assert.ok(!api.output().includes(v), "no secret in the old-key process's log");
      assert.ok(!answers.some((t) => t.includes(v)), 'nor in its answers');
    }
  });
});
