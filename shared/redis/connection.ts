import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection. BullMQ needs `maxRetriesPerRequest: null` on connections
 * that block (workers, queue events); using it everywhere keeps one shape.
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false, ...options });
}

export type { Redis };
