import assert from 'node:assert/strict';
import { Lease } from '../../shared/redis/lease.js';
import { harness } from '../support/harness.js';

describe('clock leader lease', () => {
  it('one holder at a time; only the holder renews or releases; the next one takes over', async () => {
    const key = `${harness.config.QUEUE_PREFIX}:test:leader:${Date.now()}`;
    const a = new Lease(harness.deps.redis, key, 5_000);
    const b = new Lease(harness.deps.redis, key, 5_000);
    const [ga, gb] = await Promise.all([a.acquire(), b.acquire()]);
    assert.equal(Number(ga) + Number(gb), 1, 'exactly one leader');
    const [leader, follower] = ga ? [a, b] : [b, a];
    assert.equal(await follower.renew(), false);
    await follower.release(); // not the holder: must not free the lease
    assert.equal(await follower.acquire(), false);
    assert.equal(await leader.renew(), true);
    await leader.release();
    assert.equal(await follower.acquire(), true);
  });

  it('an expired lease is free for another process', async () => {
    const key = `${harness.config.QUEUE_PREFIX}:test:expiry:${Date.now()}`;
    const a = new Lease(harness.deps.redis, key, 100);
    assert.equal(await a.acquire(), true);
    await new Promise((r) => setTimeout(r, 150));
    const b = new Lease(harness.deps.redis, key, 5_000);
    assert.equal(await b.acquire(), true);
    assert.equal(await a.renew(), false, 'the old holder learns it lost the lease');
  });
});
