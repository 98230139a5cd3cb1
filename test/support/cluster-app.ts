import { startWeb } from '../../api/server.js';
import { createDeps, type Deps } from '../../shared/deps.js';
import { migrateLatest } from '../../shared/db/migrate.js';
import { createLogger } from '../../shared/log.js';
import type { Stoppable } from '../../shared/lifecycle.js';
import { startDelivery } from '../../workers/delivery.js';
import { startDomainWorkers } from '../../workers/domains.js';
import { harness } from './harness.js';
import { startRedisCluster, type RedisClusterService } from './redis-cluster.js';
import { freshDatabase } from './services.js';

export interface ClusterApp {
  url: string;
  deps: Deps;
  cluster: RedisClusterService;
  stop(): Promise<void>;
}

/**
 * A second service (web, domain workers, delivery) on a Redis Cluster of three masters and a database of its own on
 * the suite's Postgres server, so neither the harness's workers nor its rows take part in what the cluster runs.
 */
export async function startClusterApp(overrides: Record<string, string> = {}): Promise<ClusterApp> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    const [cluster, database] = await Promise.all([startRedisCluster(3), freshDatabase(harness.services.databaseUrl)]);
    stops.push(
      () => cluster.stop(),
      () => database.drop(),
    );
    const config = harness.configWith({
      REDIS_URL: '', // unset: the cluster instead
      REDIS_CLUSTER_NODES: cluster.nodes,
      DATABASE_URL: database.url,
      ...overrides,
    });
    const deps = createDeps(config, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'));
    stops.push(() => deps.close());
    await migrateLatest(deps.db);
    const parts: Stoppable[] = [...startDomainWorkers(deps), ...startDelivery(deps)];
    stops.push(async () => {
      for (const part of parts.reverse()) await part.stop().catch(() => undefined);
    });
    const web = await startWeb(deps, 0, '127.0.0.1');
    parts.push(web);
    return { url: web.url, deps, cluster, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
