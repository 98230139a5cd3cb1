import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startWeb } from '../../api/server.js';
import { migrateLatest } from '../../shared/db/migrate.js';
import { createDeps, type Deps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { startPostgres, startRedis } from '../../scripts/local-services.js';
import { harness, type ApiResponse } from '../support/harness.js';
import { until } from '../support/receiver.js';

/**
 * With Postgres or Redis away, a request that needs it answers 503
 * `unavailable` with Retry-After (never a 500, never a wait for the
 * dependency to return), and the same request succeeds once it is back, with
 * nothing restarted. Each dependency is a private one of the test's, stopped
 * (refusing connections) or frozen (SIGSTOP: connected, silent). A request
 * that waited for the dependency would not answer while it stays away, so
 * these tests fail by their own timeout rather than by a timing assertion.
 */
const REFUSED = 'submissions and polls answer 503 with Retry-After, /healthz too; all work again once it is back';

describe('requests fail fast while a dependency is away', function () {
  this.timeout(90_000);
  const submit = (url: string, token: string) =>
    harness.call(
      'POST',
      '/v1/orchestrator/run',
      {
        token,
        headers: { prefer: 'respond-async' },
        body: { request: 'find the cheapest espresso machine', domainRoute: ['hunt'] },
      },
      url,
    );
  const poll = (url: string, token: string, runId: string) => harness.call('GET', `/v1/runs/${runId}`, { token }, url);

  function assertRefused(res: ApiResponse, dependency: RegExp) {
    assert.equal(res.status, 503, res.text);
    assert.equal(res.body.error, 'unavailable');
    assert.match(res.body.message, dependency);
    assert.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After says when to come back');
  }

  /** /healthz answers 503 once the dependency is seen away. */
  const healthRefused = (url: string) =>
    until(
      () => harness.call('GET', '/healthz', {}, url),
      (r) => r.status === 503,
    );
  /** Once the dependency is back: the run is read again and a new submission is accepted. */
  async function worksAgain(url: string, token: string, runId: string, timeoutMs?: number) {
    const back = await until(
      () => poll(url, token, runId),
      (r) => r.status === 200,
      timeoutMs,
    );
    assert.equal(back.body.run.runId, runId);
    assert.equal((await submit(url, token)).status, 202);
  }

  describe('Redis', () => {
    let dir: string;
    let redis: Awaited<ReturnType<typeof startRedis>>;
    let deps: Deps;
    let web: Awaited<ReturnType<typeof startWeb>>;
    let token: string;
    let runId: string;

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-failfast-redis-'));
      redis = await startRedis(dir, { persist: false });
      deps = createDeps(
        harness.configWith({ REDIS_URL: redis.url, QUEUE_PREFIX: `{awp-ffr-${process.pid}}` }),
        createLogger('silent'),
      );
      web = await startWeb(deps, 0, '127.0.0.1');
      ({ token } = await harness.account());
      const accepted = await submit(web.url, token);
      assert.equal(accepted.status, 202, accepted.text);
      runId = accepted.body.runId;
    });
    after(async () => {
      await web.stop();
      await deps.close();
      await redis.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it(`stopped: ${REFUSED}`, async () => {
      await redis.stop();
      assertRefused(await submit(web.url, token), /Redis/);
      assertRefused(await poll(web.url, token, runId), /Redis/);
      assertRefused(await healthRefused(web.url), /redis/);
      redis = await startRedis(dir, { persist: false, port: redis.port });
      await worksAgain(web.url, token, runId);
    });

    it('frozen (connected but silent): requests answer 503 instead of waiting for its answer', async () => {
      redis.child.kill('SIGSTOP');
      try {
        assertRefused(await poll(web.url, token, runId), /Postgres or Redis/);
        assertRefused(await submit(web.url, token), /Postgres or Redis/);
      } finally {
        redis.child.kill('SIGCONT');
      }
      await until(
        () => poll(web.url, token, runId),
        (r) => r.status === 200,
      );
    });
  });

  describe('Postgres', () => {
    let dir: string;
    let pg: Awaited<ReturnType<typeof startPostgres>>;
    let deps: Deps;
    let web: Awaited<ReturnType<typeof startWeb>>;
    let token: string;
    let runId: string;

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-failfast-pg-'));
      fs.chmodSync(dir, 0o755);
      pg = await startPostgres(path.join(dir, 'pg'), { database: 'awp', fast: true });
      deps = createDeps(
        harness.configWith({ DATABASE_URL: pg.url, QUEUE_PREFIX: `{awp-ffp-${process.pid}}` }),
        createLogger('silent'),
      );
      await migrateLatest(deps.db);
      web = await startWeb(deps, 0, '127.0.0.1');
      ({ token } = await harness.account({}, deps.db));
      const accepted = await submit(web.url, token);
      assert.equal(accepted.status, 202, accepted.text);
      runId = accepted.body.runId;
    });
    after(async () => {
      await web.stop();
      await deps.close();
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it(`stopped: ${REFUSED}`, async () => {
      await pg.stop();
      assertRefused(await submit(web.url, token), /Postgres/);
      assertRefused(await poll(web.url, token, runId), /Postgres/);
      // Known down now: the next ones are refused without a connection attempt, the same way.
      assert.equal(deps.health.isDown('postgres'), true);
      assertRefused(await poll(web.url, token, runId), /^Postgres is unavailable/);
      assertRefused(await healthRefused(web.url), /postgres/);
      pg = await startPostgres(path.join(dir, 'pg'), { database: 'awp', fast: true, port: pg.port });
      await worksAgain(web.url, token, runId, 20_000);
    });
  });
});
