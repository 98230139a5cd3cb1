import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedis } from '../../scripts/local-services.js';
import { createRedis } from '../../shared/redis/connection.js';
import { pendingMigrations } from '../../shared/db/migrate.js';
import { harness } from '../support/harness.js';
import { startExtraApp } from '../support/extra-app.js';
import { until } from '../support/receiver.js';

/** PINGs this Redis has answered so far (its own counter, so nothing else on the suite's Redis counts). */
async function pings(url: string): Promise<number> {
  const probe = createRedis(url);
  try {
    const info = (await probe.info('commandstats')) as string;
    return Number(/cmdstat_ping:calls=(\d+)/.exec(info)?.[1] ?? 0);
  } finally {
    probe.disconnect();
  }
}

describe('health routes', function () {
  this.timeout(30_000);
  let dir: string;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let app: Awaited<ReturnType<typeof startExtraApp>>;
  beforeEach(async () => {
    // An app on a Redis of its own, which the tests count PINGs on and stop.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-health-'));
    redis = await startRedis(dir, { persist: false });
    app = await startExtraApp({ REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: '10000' });
  });
  afterEach(async () => {
    await app.stop();
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('/healthz answers from memory: a burst of probes does not ping the dependencies per request', async () => {
    assert.equal((await harness.call('GET', '/healthz', {}, app.url)).status, 200);
    const before = await pings(redis.url);
    for (let i = 0; i < 30; i++) {
      const res = await harness.call('GET', '/healthz', {}, app.url);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.checks, { postgres: 'up', redis: 'up' });
    }
    // Live checks would have sent 30; the background refresh sends one a second.
    assert.ok((await pings(redis.url)) - before < 30 / 2);
  });

  it('/healthz follows Redis going away and coming back, refreshed in the background', async () => {
    assert.equal((await harness.call('GET', '/healthz', {}, app.url)).status, 200);
    await redis.stop();
    const down = await until(
      () => harness.call('GET', '/healthz', {}, app.url),
      (r) => r.status === 503,
    );
    assert.equal(down.body.error, 'unavailable');
    assert.match(down.body.message, /redis/);
    assert.deepEqual(down.body.details.checks, { postgres: 'up', redis: 'down' });
    redis = await startRedis(dir, { persist: false, port: redis.port });
    await until(
      () => harness.call('GET', '/healthz', {}, app.url),
      (r) => r.status === 200,
    );
  });

  it(
    '/readyz checks Postgres, Redis and migrations, one ' +
      'answer shared briefly; 503 naming redis once it is ' +
      'gone',
    async () => {
      const ready = await harness.call('GET', '/readyz', {}, app.url);
      assert.equal(ready.status, 200);
      assert.deepEqual(
        [ready.body.checks, ready.body.pendingMigrations],
        [{ postgres: 'up', redis: 'up', migrations: 'up' }, []],
      );
      const before = await pings(redis.url);
      await Promise.all(Array.from({ length: 5 }, () => harness.call('GET', '/readyz', {}, app.url)));
      assert.equal(await pings(redis.url), before, 'a burst of probes within the cache shares one check');
      await redis.stop();
      // Within about two seconds (the shared answer's life) the probe says why the process is not ready.
      const down = await until(
        () => harness.call('GET', '/readyz', {}, app.url),
        (r) => r.status === 503,
      );
      assert.match(down.body.message, /redis/);
      // the process is fine: an orchestrator must not restart it
      const live = await harness.call('GET', '/livez', {}, app.url);
      assert.equal(live.status, 200);
      assert.equal(typeof live.body.uptimeSec, 'number');
    },
  );

  it('a migration this code ships that the database has not applied is pending (what /readyz refuses on)', async () => {
    assert.deepEqual(await pendingMigrations(harness.deps.db), []);
    const trx = await harness.deps.db.transaction();
    try {
      const last = await trx('knex_migrations').orderBy('id', 'desc').first('name');
      await trx('knex_migrations').where({ name: last.name }).delete();
      assert.deepEqual(await pendingMigrations(trx as never), [last.name]);
    } finally {
      await trx.rollback();
    }
  });
});
