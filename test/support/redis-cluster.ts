import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort, startRedis } from '../../scripts/local-services.js';

const run = promisify(execFile);

export interface RedisClusterService {
  /** REDIS_CLUSTER_NODES for it. */
  nodes: string;
  ports: number[];
  stop(): Promise<void>;
}

/** `CLUSTER INFO` of the node on `port`, as a map. */
async function clusterInfo(port: number): Promise<Map<string, string>> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    const text = (await client.call('CLUSTER', 'INFO')) as string;
    return new Map(text.split('\r\n').map((line) => line.split(':') as [string, string]));
  } finally {
    client.disconnect();
  }
}

/**
 * A Redis Cluster of `masters` masters (no replicas) from Debian's redis-server: each node on loopback, on free
 * ports (the cluster bus too), with its files in a temp dir; `redis-cli --cluster create` spreads the 16,384
 * slots over them. Resolves once every node reports the cluster `ok`.
 */
export async function startRedisCluster(masters = 3): Promise<RedisClusterService> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-redis-cluster-'));
  const nodes: Array<{ port: number; stop(): Promise<void> }> = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop().catch(() => undefined)));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      const nodeDir = path.join(dir, `node-${i}`);
      const args = ['--cluster-enabled', 'yes', '--cluster-port', String(await freePort())];
      args.push('--cluster-config-file', path.join(nodeDir, 'nodes.conf'), '--cluster-node-timeout', '2000');
      nodes.push(await startRedis(nodeDir, { persist: false, args }));
    }
    const ports = nodes.map((n) => n.port);
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    const deadline = Date.now() + 15_000;
    for (;;) {
      const infos = await Promise.all(ports.map(clusterInfo));
      if (infos.every((i) => i.get('cluster_state') === 'ok' && i.get('cluster_known_nodes') === String(masters)))
        break;
      if (Date.now() > deadline) throw new Error('the Redis Cluster did not reach cluster_state:ok in 15 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    return { nodes: ports.map((p) => `redis://127.0.0.1:${p}`).join(','), ports, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
