import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedis } from '../../scripts/local-services.js';
import { harness } from '../support/harness.js';
import { spawnEntry, stopWith, waitForOutput } from '../support/spawn.js';

/**
 * SIGTERM must stop a process by itself even when Redis went away under it.
 * The case that hung: Redis restarts, and the signal arrives while the
 * workers' connections are still waiting out their reconnect backoff
 * (ioredis status `reconnecting`), which is exactly when an operator
 * restarting a stack sends it. The 15 s bound is the test's own patience,
 * not a speed claim (SHUTDOWN_GRACE_MS + 2 s is the process's own deadline).
 */
describe('shutdown after a Redis restart', function () {
  this.timeout(60_000);
  let dir: string;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  const children: Array<ReturnType<typeof spawnEntry>> = [];

  before(async () => {
    // Schedules other test files left in the shared database would fire in scripts/start.ts's clock and give the
    // workers real runs mid-shutdown; this test is about Redis going away, so nothing is due while it runs.
    await harness.deps.db('schedules').where({ status: 'active' }).update({ status: 'paused' });
  });

  beforeEach(async () => {
    // A Redis of this test's own, so restarting it disturbs nothing else.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-shutdown-restart-'));
    redis = await startRedis(dir, { persist: false });
  });
  afterEach(async () => {
    // A child that did not exit would outlive the suite (mocha --exit does not reach it).
    for (const child of children.splice(0))
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const start = async (entry: string) => {
    const child = spawnEntry(entry, {
      DATABASE_URL: harness.config.DATABASE_URL!,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: '{awp-shutdown-restart}',
      LOG_LEVEL: 'info',
      PORT: '0',
      HOST: '127.0.0.1',
    });
    children.push(child);
    await waitForOutput(child, (out) => out.includes('"msg":"started"') || out.includes('web listening'));
    return child;
  };

  /**
   * Stops Redis, waits until the child has been refused, then lets it back
   * off for a few seconds: ioredis's retry delay grows 50 ms per attempt, so
   * by then every client spends nearly all its time `reconnecting`
   * (socketless, waiting for its retry timer), the state that hung shutdown.
   * (Counting refusals instead is not reliable: not every attempt logs one.)
   */
  const stopRedisUnder = async (child: Awaited<ReturnType<typeof start>>) => {
    const refusedBefore = count(child.output(), 'ECONNREFUSED');
    await redis.stop();
    await waitForOutput(child, (out) => count(out, 'ECONNREFUSED') > refusedBefore);
    await new Promise((r) => setTimeout(r, 3000));
  };
  const restartRedisUnder = async (child: Awaited<ReturnType<typeof start>>) => {
    await stopRedisUnder(child);
    redis = await startRedis(dir, { persist: false, port: redis.port });
  };

  for (const entry of ['workers/domains.ts', 'scripts/start.ts']) {
    it(`${entry} exits by itself with code 0 on SIGTERM right after Redis restarted`, async () => {
      const child = await start(entry);
      await restartRedisUnder(child);
      await exitsCleanly(child);
    });
  }

  it('workers/domains.ts exits by itself with code 0 on SIGTERM while Redis is still down', async () => {
    const child = await start('workers/domains.ts');
    await stopRedisUnder(child);
    // Work that needs Redis cannot finish now, so the grace's force-close may
    // be what ends it (BullMQ 6.7 re-opens a blocking connection it is
    // closing once its wait has timed out); the deadline's exit 1 may not.
    assert.equal(await exitCode(child), 0, child.output());
    assert.doesNotMatch(child.output(), /shutdown deadline passed/);
  });
});

/** SIGTERM, then the exit code; on a hang, the child's last lines show which part did not stop. */
async function exitCode(child: ReturnType<typeof spawnEntry>): Promise<number | null> {
  try {
    return await stopWith(child, 'SIGTERM', 15_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}; last output:\n${child.output().split('\n').slice(-25).join('\n')}`);
  }
}

/**
 * The process exits by itself with 0, every part stopping on its own: the
 * grace's force-close is a safety net, and reaching it would hide the defect
 * this file is about.
 */
async function exitsCleanly(child: ReturnType<typeof spawnEntry>): Promise<void> {
  assert.equal(await exitCode(child), 0, child.output());
  assert.doesNotMatch(child.output(), /force-closing|shutdown deadline passed/);
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
