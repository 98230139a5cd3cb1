import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import { startRedis } from '../../scripts/local-services.js';
import { createRedis } from '../../shared/redis/connection.js';
import { closeWorker } from '../../workers/domains.js';
import { whenAborted } from '../../workers/lifecycle.js';

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
    const worker = new Worker('grace', async () => { markActive(); await gate; }, opts);
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
