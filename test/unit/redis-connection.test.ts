import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedis } from '../../scripts/local-services.js';
import { AwpRedis, createRedis } from '../../shared/redis/connection.js';

/**
 * The root of the shutdown hang after a Redis restart: ioredis never ended a
 * client disconnected while `reconnecting`. Against a real Redis that goes away.
 */
describe('Redis connection', function () {
  this.timeout(20_000);
  let dir: string;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-redis-conn-'));
    redis = await startRedis(dir, { persist: false });
  });
  afterEach(async () => {
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('disconnect() while reconnecting ends the client and rejects what waits for Redis', async () => {
    const client = createRedis(redis.url);
    client.on('error', () => undefined);
    await client.ping();
    await redis.stop();
    if (client.status !== 'reconnecting') await once(client, 'reconnecting');
    const waiting = client.get('k'); // queued until Redis is back, which will not happen
    const ended = once(client, 'end');
    client.disconnect();
    await ended; // hung forever before the fix; bounded by this test's timeout
    assert.equal(client.status, 'end');
    await assert.rejects(waiting, /Connection is closed/);
  });

  it('copies (BullMQ duplicates the connection per worker) are the same kind, and still reconnect', async () => {
    const client = createRedis(redis.url);
    const copy = client.duplicate();
    try {
      assert.ok(copy instanceof AwpRedis);
      assert.equal(await copy.ping(), 'PONG');
      copy.on('error', () => undefined);
      await redis.stop();
      redis = await startRedis(dir, { persist: false, port: redis.port });
      assert.equal(await copy.ping(), 'PONG'); // waits for the reconnect
    } finally {
      copy.disconnect();
      client.disconnect();
    }
  });
});
