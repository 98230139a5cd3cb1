import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import { freePort, startRedis } from '../../scripts/local-services.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { createRedis } from '../../shared/redis/connection.js';
import { closeWorker, startWorkers } from '../../workers/domains.js';
import { whenAborted } from '../../shared/lifecycle.js';
import { harness } from '../support/harness.js';

describe('worker shutdown without Redis', function () {
  this.timeout(20_000);

  it('workers whose connections never reached Redis stop at once, without the force-close', async () => {
    // BullMQ's close waits for its blocking connection to have started, which needs Redis (bullmq#4656).
    const deps = createDeps(
      harness.configWith({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` }),
      createLogger('silent'),
    );
    deps.redis.on('error', () => undefined);
    try {
      const [workers] = startWorkers(deps, ['hunt', 'resolve']);
      while (deps.redis.status !== 'reconnecting') await new Promise((r) => setTimeout(r, 20));
      await workers!.stop(new AbortController().signal); // a grace that never ends; bounded by this test's timeout
    } finally {
      await deps.close();
    }
  });
});

/**
 * The safety net behind a clean shutdown: when the grace is over, a worker
 * that cannot finish closing (here its job's completion is stuck on a Redis
 * that stopped answering, CLIENT PAUSE) is force-closed instead of holding
 * the process until it is killed.
 */
describe('shutdown grace', function () {
  this.timeout(30_000);

  let dir: string;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let connection: ReturnType<typeof createRedis>;
  let probe: ReturnType<typeof createRedis>;
  // Hooks, not finally: they also run when the test times out, so no Redis outlives a failure.
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-grace-'));
    redis = await startRedis(dir, { persist: false });
    connection = createRedis(redis.url);
    connection.on('error', () => undefined);
    probe = createRedis(redis.url);
  });
  afterEach(async () => {
    probe.disconnect();
    connection.disconnect();
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a worker stuck on an unresponsive Redis keeps draining until the grace is over, then closes', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let markActive!: () => void;
    const active = new Promise<void>((r) => (markActive = r));
    const opts = { connection: connection as unknown as ConnectionOptions, prefix: '{awp-grace}' };
    const worker = new Worker(
      'grace',
      async () => {
        markActive();
        await gate;
      },
      opts,
    );
    worker.on('error', () => undefined);
    await new Queue('grace', opts).add('held', {});
    await active;
    await probe.client('PAUSE', 60_000, 'ALL'); // connections stay open, nothing is answered
    release(); // the job is done; recording that needs Redis

    const grace = new AbortController();
    let closed = false;
    worker.once('closed', () => (closed = true));
    let forced = false;
    const stopping = closeWorker(worker, whenAborted(grace.signal), () => (forced = true));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(closed, false, 'a graceful close waits for the job to be recorded');

    grace.abort();
    await stopping; // bounded by this test's timeout, far below the 60 s pause
    assert.equal(forced, true);
    assert.equal(closed, true);
  });
});
