import assert from 'node:assert/strict';
import { loadConfig } from '../../shared/config.js';
import { hashTag, keyspace, parseClusterNodes, shardOf, shardPrefixes } from '../../shared/redis/cluster.js';

describe('Redis Cluster settings and key names', () => {
  it('reads seed nodes, credentials and TLS from REDIS_CLUSTER_NODES', () => {
    assert.deepEqual(parseClusterNodes('redis://127.0.0.1:7000, redis://10.0.0.2:7001'), {
      nodes: [
        { host: '127.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      tls: false,
    });
    assert.deepEqual(parseClusterNodes('rediss://awp:p%40ss@cache.internal,rediss://[::1]:7002'), {
      nodes: [
        { host: 'cache.internal', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      username: 'awp',
      password: 'p@ss',
      tls: true,
    });
    assert.throws(() => parseClusterNodes(' , '), /names no node/);
    assert.throws(() => parseClusterNodes('127.0.0.1:7000'), /not redis: or rediss:|not a URL/);
    assert.throws(() => parseClusterNodes('http://127.0.0.1:7000'), /"http:" is not redis: or rediss:/);
    assert.throws(() => parseClusterNodes('redis://a:1,rediss://b:2'), /mixes/);
  });

  it('finds the hash tag the way Redis Cluster does', () => {
    assert.equal(hashTag('{awp}'), 'awp');
    assert.equal(hashTag('x{awp}y{z}'), 'awp');
    assert.equal(hashTag('awp'), null);
    assert.equal(hashTag('{}awp'), null, 'an empty tag hashes the whole key');
    assert.equal(hashTag('{awp'), null);
  });

  it('names one hash tag per queue shard, shard 0 being QUEUE_PREFIX itself', () => {
    assert.deepEqual(shardPrefixes('{awp}', 1), ['{awp}']);
    assert.deepEqual(shardPrefixes('{awp}', 3), ['{awp}', '{awp-1}', '{awp-2}']);
    assert.deepEqual(shardPrefixes('q:{awp}:x', 2), ['q:{awp}:x', 'q:{awp-1}:x']);
    assert.deepEqual(shardPrefixes('awp', 1), ['awp']);
    assert.throws(() => shardPrefixes('awp', 2), /needs a hash tag/);
  });

  it('sends a run to the same shard every time, and runs to every shard', () => {
    assert.equal(shardOf('run_01a2', 1), 0);
    assert.equal(shardOf('run_01a2', 4), shardOf('run_01a2', 4));
    const hit = new Set(Array.from({ length: 200 }, (_, i) => shardOf(`run_${i}`, 4)));
    assert.deepEqual([...hit].sort(), [0, 1, 2, 3]);
  });

  it('gives per-request keys no hash tag', () => {
    assert.equal(keyspace('{awp}'), 'awp');
    assert.equal(keyspace('{awp-test-1a2b3c}'), 'awp-test-1a2b3c');
  });

  it('refuses Redis settings that cannot work together', () => {
    const base = { DATABASE_URL: 'postgres://x/y' };
    assert.throws(
      () => loadConfig({ ...base, REDIS_URL: 'redis://a:1', REDIS_CLUSTER_NODES: 'redis://b:2' }),
      /REDIS_URL .* or REDIS_CLUSTER_NODES .*, not both/,
    );
    assert.throws(
      () => loadConfig({ ...base, REDIS_CLUSTER_NODES: 'redis://b:2', QUEUE_PREFIX: 'awp' }),
      /QUEUE_PREFIX "awp" needs a hash tag on a Redis Cluster/,
    );
    assert.throws(
      () => loadConfig({ ...base, REDIS_URL: 'redis://a:1', QUEUE_SHARDS: '2', QUEUE_PREFIX: 'awp' }),
      /needs a hash tag with QUEUE_SHARDS > 1/,
    );
    assert.throws(() => loadConfig({ ...base, REDIS_CLUSTER_NODES: 'tcp://b:2' }), /"tcp:" is not redis:/);
    const ok = loadConfig({ ...base, REDIS_CLUSTER_NODES: 'redis://b:2,redis://c:3', QUEUE_SHARDS: '4' });
    assert.equal(ok.QUEUE_PREFIX, '{awp}');
    assert.equal(ok.QUEUE_SHARDS, 4);
  });
});
