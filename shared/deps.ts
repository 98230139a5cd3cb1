import type { Knex } from 'knex';
import type { Config } from './config.js';
import { createDb } from './db/knex.js';
import { DependencyChecks, HealthMonitor } from './health.js';
import { createLogger, type Logger } from './log.js';
import { QueueHub } from './queues.js';
import { createRedis, failFastClient, type RedisClient } from './redis/connection.js';
import { DependencyUnavailable } from './transient.js';
import { createRedisCluster } from './redis/cluster.js';
import { DOMAIN_NAMES } from './domain-names.js';
import { Bus } from './redis/bus.js';

/**
 * Everything a handler, processor or tick needs, built once per process.
 * Passing it explicitly (no module singletons) lets tests build as many
 * isolated instances as they like.
 */
export interface Deps {
  config: Config;
  db: Knex;
  /** One Redis server, or a Redis Cluster (REDIS_CLUSTER_NODES). */
  redis: RedisClient;
  log: Logger;
  queues: QueueHub;
  /** Pub/sub for live run events and cancel signals. */
  bus: Bus;
  /** Postgres and Redis reachability: `health.checks.check()` live, `health.current()` cached. */
  health: HealthMonitor;
  close(): Promise<void>;
}

export function createDeps(config: Config, log: Logger = createLogger(config.LOG_LEVEL)): Deps {
  if (!config.DATABASE_URL || !(config.REDIS_URL || config.REDIS_CLUSTER_NODES)) {
    throw new Error(
      'DATABASE_URL and REDIS_URL (or REDIS_CLUSTER_NODES) must be set (npm start sets them for local services)',
    );
  }
  // knex reports pool errors (Postgres restarting) itself: into the service log, not the console.
  const db = createDb(
    config.DATABASE_URL,
    { min: 0, max: config.DB_POOL_MAX },
    {
      warn: (message) => log.warn({ db: String(message).slice(0, 300) }, 'postgres pool'),
      error: (message) => log.error({ db: String(message).slice(0, 300) }, 'postgres pool'),
    },
  );
  // No auto-pipelining: measured, its gain was within the bench's noise, and with it a worker's close while Redis is
  // down could outlast the shutdown deadline (test/reliability/shutdown-redis-restart.test.ts failed once under load).
  const redis = config.REDIS_CLUSTER_NODES
    ? createRedisCluster(config.REDIS_CLUSTER_NODES)
    : createRedis(config.REDIS_URL!);
  redis.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
  const queues = new QueueHub(
    redis,
    config.QUEUE_PREFIX,
    (err) => log.warn({ err: err.message }, 'queue connection error'),
    { shards: config.QUEUE_SHARDS, stepQueues: DOMAIN_NAMES },
  );
  const bus = new Bus(redis, config.QUEUE_PREFIX);
  const health = new HealthMonitor(new DependencyChecks({ db, redis }));
  let closed = false;
  return {
    config,
    db,
    redis,
    log,
    queues,
    bus,
    health,
    async close() {
      if (closed) return;
      closed = true;
      health.stop();
      await bus.close();
      await queues.close();
      await db.destroy();
      redis.disconnect();
    },
  };
}

/**
 * The deps of the web's requests: the process's, except that Redis and
 * Postgres fail fast. Redis through a connection of their own that never
 * waits for it (`failFastClient`), with queue handles on it and a bus that
 * publishes on it (its subscriptions wait for Redis like any other);
 * Postgres through the process's pool, refusing at once while the health
 * state knows Postgres is down (a lost connection flips it, see
 * `HealthMonitor.watch`) instead of waiting out knex's acquire timeout.
 * Workers keep the patient deps and wait an outage out. `close()` ends
 * only what this made; the process's deps stay open.
 */
export function requestDeps(deps: Deps): Deps {
  deps.health.watch(); // first: knex copies its query-error listener into the request view below
  const redis = failFastClient(deps.redis);
  redis.on('error', () => undefined); // the process's own client logs the connection's errors
  const queues = new QueueHub(
    redis,
    deps.config.QUEUE_PREFIX,
    (err) => deps.log.warn({ err: err.message }, 'queue connection error'),
    { shards: deps.config.QUEUE_SHARDS, stepQueues: DOMAIN_NAMES },
  );
  const bus = new Bus(redis, deps.config.QUEUE_PREFIX, deps.redis);
  let closed = false;
  return {
    ...deps,
    db: failFastDb(deps.db, () => deps.health.isDown('postgres')),
    redis,
    queues,
    bus,
    async close() {
      if (closed) return;
      closed = true;
      await bus.close();
      await queues.close();
      redis.disconnect();
    },
  };
}

/** A view of `db` on the same pool whose queries fail at once (transient) while `down()` says so. */
function failFastDb(db: Knex, down: () => boolean): Knex {
  const view = db.withUserParams({ failFast: true });
  const client = view.client as { acquireConnection(): Promise<unknown> };
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = () => (down() ? Promise.reject(new DependencyUnavailable('postgres')) : acquire());
  return view;
}
