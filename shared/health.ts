import type { Knex } from 'knex';
import type { RedisClient } from './redis/connection.js';
import { pendingMigrations } from './db/migrate.js';

export type Health = { postgres: 'up' | 'down'; redis: 'up' | 'down' };

const CHECK_TIMEOUT_MS = 1000;
const REFRESH_MS = 1000;
/** ioredis statuses of a client that lost (or closed) its connection; `connecting` is still worth a PING. */
const LOST = new Set(['reconnecting', 'close', 'end']);

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Pings Postgres and Redis; a dependency that does not answer within 1 s is
 * `down`. A probe still unanswered from an earlier check is awaited instead of
 * sending another, so a dependency that hangs (not refusing, just silent)
 * does not collect one queued query or PING per check. A Redis client that
 * lost its connection is `down` without a PING: ioredis would only queue it.
 */
export class DependencyChecks {
  private pgProbe?: Promise<unknown>;
  private redisProbe?: Promise<unknown>;

  constructor(private readonly deps: { db: Knex; redis: RedisClient }) {}

  async check(): Promise<Health> {
    const [pg, redis] = await Promise.allSettled([this.postgres(), this.redis()]);
    return { postgres: pg.status === 'fulfilled' ? 'up' : 'down', redis: redis.status === 'fulfilled' ? 'up' : 'down' };
  }

  private postgres(): Promise<unknown> {
    this.pgProbe ??= Promise.resolve(this.deps.db.raw('select 1')).finally(() => (this.pgProbe = undefined));
    return withTimeout(this.pgProbe, CHECK_TIMEOUT_MS);
  }

  private redis(): Promise<unknown> {
    if (LOST.has(this.deps.redis.status)) return Promise.reject(new Error(`redis ${this.deps.redis.status}`));
    this.redisProbe ??= this.deps.redis.ping().finally(() => (this.redisProbe = undefined));
    return withTimeout(this.redisProbe, CHECK_TIMEOUT_MS);
  }
}

/**
 * The health state `/healthz` serves from memory, so a load balancer probing
 * it never puts dependency round trips on the request path. The first read
 * runs a check and starts a background refresh: the next check starts
 * `REFRESH_MS` after the previous one finished (never overlapping, at most
 * once a second). The timer is unref'd and `stop()` (from `deps.close()`) ends it.
 */
export class HealthMonitor {
  private state?: { checks: Health; checkedAt: Date };
  private first?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(readonly checks: DependencyChecks) {}

  /** The latest state; waits only for the very first check. */
  async current(): Promise<{ checks: Health; checkedAt: Date }> {
    if (!this.state) {
      this.first ??= this.refresh();
      await this.first;
    }
    return this.state!;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async refresh(): Promise<void> {
    this.state = { checks: await this.checks.check(), checkedAt: new Date() };
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }
}

/**
 * What `/readyz` answers: the live checks and the migration files this code ships that the database has not applied.
 */
export type Readiness = { checks: Health & { migrations: 'up' | 'pending' | 'unknown' }; pendingMigrations: string[] };

/** How long one readiness answer is shared: a burst of probes costs one check. */
const READY_CACHE_MS = 2000;
const readinessCache = new WeakMap<object, { at: number; answer: Promise<Readiness> }>();

/**
 * `/readyz`: Postgres and Redis checked live, and the schema (no shipped
 * migration pending), shared for READY_CACHE_MS. Migrations are `unknown`
 * while Postgres is down.
 */
export function readiness(deps: { db: Knex; health: HealthMonitor }): Promise<Readiness> {
  const hit = readinessCache.get(deps.health);
  if (hit && Date.now() - hit.at < READY_CACHE_MS) return hit.answer;
  const answer = (async (): Promise<Readiness> => {
    const checks = await deps.health.checks.check();
    const pending =
      checks.postgres === 'up'
        ? await withTimeout(pendingMigrations(deps.db), CHECK_TIMEOUT_MS).catch(() => null)
        : null;
    return {
      checks: { ...checks, migrations: pending === null ? 'unknown' : pending.length > 0 ? 'pending' : 'up' },
      pendingMigrations: pending ?? [],
    };
  })();
  readinessCache.set(deps.health, { at: Date.now(), answer });
  return answer;
}
