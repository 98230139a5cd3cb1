import { randomUUID } from 'node:crypto';
import type { RedisClient } from './connection.js';

const RENEW =
  `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 ` + `end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * A short Redis lease (clock leader, per-connector locks): SET NX PX to take
 * it, and compare-and-act scripts so only the holder renews or releases it.
 */
export class Lease {
  readonly token = randomUUID();
  constructor(
    private readonly redis: RedisClient,
    readonly key: string,
    readonly ttlMs: number,
  ) {}

  async acquire(): Promise<boolean> {
    return (await this.redis.set(this.key, this.token, 'PX', this.ttlMs, 'NX')) === 'OK';
  }

  /** Extends the lease; false when it was lost (expired and taken by another). */
  async renew(): Promise<boolean> {
    return (await this.redis.eval(RENEW, 1, this.key, this.token, String(this.ttlMs))) === 1;
  }

  async release(): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key, this.token);
  }
}
