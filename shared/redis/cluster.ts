import { createHash } from 'node:crypto';
import { Cluster } from 'ioredis';

/**
 * Redis Cluster: the seed nodes (REDIS_CLUSTER_NODES), and the key names that
 * keep what must share a slot on one slot.
 *
 * A Redis Cluster hashes a key by its hash tag (the text between the first
 * `{` and the next `}`) when it has one, so keys with the same tag live on
 * one slot, on one master. BullMQ needs that: its scripts touch many keys of
 * a queue at once. So the queues carry the tag of QUEUE_PREFIX, and with
 * QUEUE_SHARDS > 1 the domains' queues exist once per shard, each shard a tag
 * of its own (`{awp}`, `{awp-1}`, …): a run's step jobs go to one shard, by
 * its run id, and the shards spread over the masters. The service's other
 * per-request keys (rate limits, sign-in attempts) carry no tag so they
 * spread over every slot (`keyspace`).
 */

export interface ClusterSeed {
  host: string;
  port: number;
}

export interface ClusterSeeds {
  nodes: ClusterSeed[];
  username?: string;
  password?: string;
  tls: boolean;
}

/**
 * Parses REDIS_CLUSTER_NODES: comma-separated `redis://[user:password@]host:port` (or `rediss://` for TLS)
 * URLs; credentials and TLS are read from the first and apply to every node (a cluster has one ACL).
 */
export function parseClusterNodes(value: string): ClusterSeeds {
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('REDIS_CLUSTER_NODES names no node');
  const urls = entries.map((entry) => {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(`REDIS_CLUSTER_NODES: ${JSON.stringify(entry)} is not a URL (redis://host:port)`);
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
      throw new Error(`REDIS_CLUSTER_NODES: ${JSON.stringify(url.protocol)} is not redis: or rediss:`);
    if (!url.hostname) throw new Error(`REDIS_CLUSTER_NODES: ${JSON.stringify(entry)} names no host`);
    return url;
  });
  const first = urls[0]!;
  if (urls.some((u) => u.protocol !== first.protocol))
    throw new Error('REDIS_CLUSTER_NODES: mixes redis: and rediss: nodes');
  return {
    nodes: urls.map((u) => ({ host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379) })),
    ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
    ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
    tls: first.protocol === 'rediss:',
  };
}

/**
 * A Redis Cluster client shaped like `createRedis`'s (BullMQ's blocking commands need `maxRetriesPerRequest: null`).
 */
export function createRedisCluster(value: string): Cluster {
  const seeds = parseClusterNodes(value);
  return new Cluster(seeds.nodes, {
    enableReadyCheck: true,
    redisOptions: {
      maxRetriesPerRequest: null,
      ...(seeds.username ? { username: seeds.username } : {}),
      ...(seeds.password ? { password: seeds.password } : {}),
      ...(seeds.tls ? { tls: {} } : {}),
    },
  });
}

/** The hash tag of a key prefix as Redis Cluster reads it (null when the prefix has none, or an empty `{}`). */
export function hashTag(prefix: string): string | null {
  const open = prefix.indexOf('{');
  if (open < 0) return null;
  const close = prefix.indexOf('}', open + 1);
  return close > open + 1 ? prefix.slice(open + 1, close) : null;
}

/**
 * The queue prefix of each shard: shard 0 is QUEUE_PREFIX itself (queues that were there stay there), shard n puts
 * `-n` at the end of its hash tag, so each shard hashes to a slot of its own.
 */
export function shardPrefixes(prefix: string, shards: number): string[] {
  if (shards <= 1) return [prefix];
  const tag = hashTag(prefix);
  if (tag === null) throw new Error(`QUEUE_SHARDS > 1 needs a hash tag in QUEUE_PREFIX (${prefix})`);
  const at = prefix.indexOf('{') + 1 + tag.length;
  return Array.from({ length: shards }, (_, n) =>
    n === 0 ? prefix : `${prefix.slice(0, at)}-${n}${prefix.slice(at)}`,
  );
}

/** Which of `shards` the jobs of this run go to: stable, so a job added again (same id) lands where the first is. */
export function shardOf(key: string, shards: number): number {
  if (shards <= 1) return 0;
  return createHash('sha256').update(key).digest().readUInt32BE(0) % shards;
}

/**
 * The prefix of the service's own per-request keys: QUEUE_PREFIX without its hash tag's braces (`{awp}` → `awp`),
 * so on a cluster they spread over every master instead of piling onto the queues' slot.
 */
export function keyspace(prefix: string): string {
  return prefix.replace(/[{}]/g, '');
}
