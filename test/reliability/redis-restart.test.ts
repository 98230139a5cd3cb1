import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sweepStuckRuns } from '../../jobs/orchestrator/stuck-runs.js';
import { submitRun } from '../../jobs/orchestrator/submit.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { startRedis } from '../../scripts/local-services.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';
import { until } from '../support/receiver.js';

describe('Redis restarted empty', function () {
  this.timeout(60_000);

  it('loses no run: the sweep re-enqueues it from Postgres and it completes', async () => {
    // A Redis of this test's own, so restarting it disturbs nothing else.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-redis-restart-'));
    let redis = await startRedis(dir, { persist: false });
    const deps = createDeps(
      harness.configWith({ REDIS_URL: redis.url, QUEUE_PREFIX: '{awp-restart}' }),
      createLogger('silent'),
    );
    let workers: Array<{ stop(): Promise<void> }> = [];
    try {
      const { accountId, tokenId } = await harness.account();
      await seedCatalog(accountId);
      // No worker runs yet: the flow sits in Redis when Redis goes away.
      const run = await submitRun(
        deps,
        { accountId, tokenId, scopes: [], plan: 'team', activated: true },
        { request: 'find the cheapest espresso machine', domainRoute: ['hunt', 'resolve'] },
      );
      assert.ok(Number(await deps.redis.dbsize()) > 0);
      await redis.stop();
      redis = await startRedis(dir, { persist: false, port: redis.port });
      await until(
        () => deps.redis.ping().catch(() => 'down'),
        (r) => r === 'PONG',
      );
      assert.equal(Number(await deps.redis.dbsize()), 0, 'the flow is gone with the old Redis');

      workers = startWorkers(deps, ['hunt', 'resolve', 'orchestrator']);
      await harness.deps
        .db('runs')
        .where({ id: run.id })
        .update({ updated_at: harness.deps.db.raw(`now() - interval '2 minutes'`) });
      const swept = await sweepStuckRuns(deps);
      assert.ok(swept.requeued >= 1);
      const done = await until(
        () => harness.deps.db('runs').where({ id: run.id }).first(),
        (r) => r.status === 'ready',
        20_000,
      );
      assert.equal(done.status, 'ready');
      assert.equal((await harness.deps.db('run_events').where({ run_id: run.id, type: 'final' })).length, 1);
    } finally {
      for (const w of workers) await w.stop();
      await deps.close();
      await redis.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
