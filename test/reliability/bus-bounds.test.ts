import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { followRun, waitForRest } from '../../jobs/orchestrator/follow.js';
import { startRedis } from '../../scripts/local-services.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { Bus } from '../../shared/redis/bus.js';
import { copiesOf, createRedis, type RedisClient } from '../../shared/redis/connection.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';
import { seedCatalog } from '../support/runs.js';

/**
 * What a process keeps per run, per request and per reconnect on its Redis side: a channel while a run is followed
 * or waited for, none after; no listener added again when Redis comes back.
 */
describe('the bus and the Redis clients stay bounded', function () {
  this.timeout(60_000);

  it('a sync wait, a stream, a wait that runs out and a follower that leaves all give their channel back', async () => {
    const { accountId, token } = await harness.account();
    await seedCatalog(accountId);
    const bus = harness.deps.bus;
    const body = { request: 'find the cheapest espresso machine', domainRoute: ['hunt', 'resolve'] };
    // One run first: the process's own channels (cancels, auth changes) are subscribed on first use and stay.
    assert.equal((await harness.call('POST', '/v1/orchestrator/run', { token, body })).status, 200);
    const before = bus.size;
    const runs = await Promise.all(
      Array.from({ length: 4 }, () => harness.call('POST', '/v1/orchestrator/run', { token, body })),
    );
    for (const r of runs) assert.equal(r.status, 200, r.text);
    const stream = await harness.call('POST', '/v1/orchestrator/run', { token, body: { ...body, stream: true } });
    assert.equal(stream.status, 200, stream.text);
    assert.equal(await waitForRest(harness.deps, `run_${randomBytes(8).toString('hex')}`, 200), null);
    const left = new AbortController();
    const follower = followRun(harness.deps, `run_${randomBytes(8).toString('hex')}`, 0, 'ndjson', left.signal);
    follower.resume();
    await until(
      () => bus.size,
      (n) => n > before,
    );
    left.abort();
    await until(
      () => bus.size,
      (n) => n === before,
    );
    assert.equal(bus.size, before);
  });

  it('a SUBSCRIBE Redis refuses leaves no channel behind, and the next subscriber sends it again', async () => {
    const user = `bus_${randomBytes(4).toString('hex')}`;
    const admin = harness.deps.redis;
    await admin.call('ACL', 'SETUSER', user, 'on', 'nopass', '~*', '+@all', 'resetchannels');
    const url = new URL(harness.config.REDIS_URL!);
    url.username = user;
    const publisher = createRedis(url.toString());
    const bus = new Bus(publisher, `{bus-test-${user}}`);
    try {
      await assert.rejects(
        bus.subscribe('x', () => undefined),
        /NOPERM/,
      );
      assert.equal(bus.size, 0, 'the refused channel was dropped');
      await admin.call('ACL', 'SETUSER', user, 'allchannels');
      const got: string[] = [];
      const unsubscribe = await bus.subscribe('x', (m) => got.push(m));
      await admin.publish(bus.channel('x'), '"hello"');
      await until(
        () => got,
        (g) => g.length === 1,
      );
      await unsubscribe();
      assert.equal(bus.size, 0);
    } finally {
      await bus.close();
      publisher.disconnect();
      await admin.call('ACL', 'DELUSER', user);
    }
  });

  it('after Redis restarts, no client has a listener added twice and the bus still delivers', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-bus-bounds-'));
    let redis = await startRedis(dir, { persist: false });
    const deps = createDeps(
      harness.configWith({ REDIS_URL: redis.url, QUEUE_PREFIX: '{awp-bus-bounds}' }),
      createLogger('silent'),
    );
    const workers = startWorkers(deps, ['hunt', 'orchestrator']);
    const got: string[] = [];
    try {
      await deps.bus.subscribe('probe', (m) => got.push(m));
      const listeners = () => listenerCounts([deps.redis, ...copiesOf(deps.redis)]);
      const at = listeners();
      for (let i = 0; i < 2; i++) {
        await redis.stop();
        redis = await startRedis(dir, { persist: false, port: redis.port });
        await until(
          () => Promise.all([deps.redis, ...copiesOf(deps.redis)].map((c) => c.status)),
          (s) => s.every((x) => x === 'ready'),
          20_000,
        );
      }
      assert.deepEqual(listeners(), at, 'the same clients with the same listeners');
      // Published until one arrives: the subscriber's SUBSCRIBE again may land just after the publisher reconnected.
      await until(
        async () => {
          await deps.bus.publish('probe', 'after');
          return got;
        },
        (g) => g.length > 0,
      );
      assert.equal(deps.bus.size, 1, 'the probe channel, once');
    } finally {
      for (const w of workers) await w.stop();
      await deps.close();
      await redis.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Listeners per event over `clients`, and how many clients there are. */
function listenerCounts(clients: RedisClient[]): Record<string, number> {
  const out: Record<string, number> = { clients: clients.length };
  for (const c of clients)
    for (const ev of c.eventNames()) out[String(ev)] = (out[String(ev)] ?? 0) + c.listenerCount(ev);
  return out;
}
