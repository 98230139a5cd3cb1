import type { Knex } from 'knex';
import type { RedisClient } from './redis/connection.js';
import { pendingMigrations } from './db/migrate.js';
import { isServerAway, type Dependency } from './transient.js';

export type Health = { postgres: 'up' | 'down'; redis: 'up' | 'down' };

const CHECK_TIMEOUT_MS = 1000;
const REFRESH_MS = 1000;
/** A check asked for while one ran (a connection was lost meanwhile) follows it this soon. */
const AGAIN_MS = 50;
const DEPENDENCIES: Dependency[] = ['postgres', 'redis'];

/** The tarn pool's event API, as knex keeps it (`db.client.pool`). */
interface PoolEvents {
  on(event: 'createFail', listener: (id: unknown, err: unknown) => void): void;
  removeListener(event: 'createFail', listener: (id: unknown, err: unknown) => void): void;
}
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

  constructor(readonly deps: { db: Knex; redis: RedisClient }) {}

  async check(): Promise<Health> {
    const { postgres, redis } = await this.probe();
    return {
      postgres: postgres.status === 'fulfilled' ? 'up' : 'down',
      redis: redis.status === 'fulfilled' ? 'up' : 'down',
    };
  }

  /** Both probes, settled: a rejection says why (a timeout, or the server refusing). */
  async probe(): Promise<Record<Dependency, PromiseSettledResult<unknown>>> {
    const [postgres, redis] = await Promise.allSettled([this.postgres(), this.redis()]);
    return { postgres, redis };
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
 *
 * Once `watch()`ed (the web process does), a lost connection flips the state
 * at once rather than at the next check: Redis's client closing its
 * connection, a Postgres connection that cannot be made or a query cut off
 * by the server going away (`isServerAway`). Such a loss also runs a check
 * right away, so a false alarm (one backend terminated) lasts one round trip;
 * a check that began before the loss cannot clear it.
 *
 * Requests read `isDown()` to fail at once instead of waiting on the
 * dependency. It goes by evidence the server is away (a loss, or a probe
 * refused), never by a slow probe alone: a pool busy under load makes the
 * probe wait too, and must not turn every request away.
 */
export class HealthMonitor {
  private state?: { checks: Health; checkedAt: Date };
  /** When each dependency was last seen away (ms)... */
  private readonly lostAt: Record<Dependency, number> = { postgres: -1, redis: -1 };
  /** ...and when the last probe that found it up began: it is down for requests while the loss is the later. */
  private readonly upSince: Record<Dependency, number> = { postgres: 0, redis: 0 };
  private inflight?: Promise<void>;
  private again = false;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private unwatch: Array<() => void> = [];

  constructor(readonly checks: DependencyChecks) {}

  /** The latest state; waits only for the very first check. */
  async current(): Promise<{ checks: Health; checkedAt: Date }> {
    if (!this.state) await (this.inflight ?? this.refresh());
    return this.state!;
  }

  /** Whether `dependency` is known to be away now (no round trip): seen lost, and no probe found it up since. */
  isDown(dependency: Dependency): boolean {
    return this.lostAt[dependency] >= this.upSince[dependency];
  }

  /** Follows the dependencies' connection events, and keeps checking from now on. */
  watch(): void {
    if (this.unwatch.length > 0 || this.stopped) return;
    const { db, redis } = this.checks.deps;
    const redisLost = () => this.lost('redis');
    const redisBack = () => this.kick();
    redis.on('close', redisLost);
    redis.on('end', redisLost);
    redis.on('ready', redisBack);
    const pgLost = (err: unknown) => {
      if (isServerAway(err)) this.lost('postgres');
    };
    // Any query answered since the loss says Postgres is back, as a probe would: the probe may be stuck behind a pool
    // busy with workers catching up, and requests must not wait for it.
    const pgAnswered = () => {
      if (this.isDown('postgres')) this.upSince.postgres = Date.now();
    };
    const pool = (db.client as { pool?: PoolEvents }).pool;
    const createFail = (_id: unknown, err: unknown) => pgLost(err);
    pool?.on('createFail', createFail);
    db.on('query-error', pgLost);
    db.on('query-response', pgAnswered);
    this.unwatch.push(() => {
      redis.off('close', redisLost);
      redis.off('end', redisLost);
      redis.off('ready', redisBack);
      pool?.removeListener('createFail', createFail);
      db.off('query-error', pgLost);
      db.off('query-response', pgAnswered);
    });
    void this.current();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const off of this.unwatch.splice(0)) off();
  }

  /** A connection to `dependency` was lost: down at once, and checked now (not at the next tick). */
  private lost(dependency: Dependency): void {
    const already = this.isDown(dependency);
    this.lostAt[dependency] = Date.now();
    if (already) return; // the regular checks see it come back
    if (this.state) this.state = { checks: { ...this.state.checks, [dependency]: 'down' }, checkedAt: new Date() };
    this.kick();
  }

  /** A check now: at once when none is running, else right after the running one. */
  private kick(): void {
    if (this.stopped) return;
    if (this.inflight) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    void this.refresh();
  }

  private refresh(): Promise<void> {
    this.inflight = (async () => {
      const began = Date.now();
      const probed = await this.checks.probe();
      const checks: Health = { postgres: 'down', redis: 'down' };
      for (const dependency of DEPENDENCIES) {
        const result = probed[dependency];
        if (result.status === 'rejected') {
          if (isServerAway(result.reason)) this.lostAt[dependency] = Date.now();
        } else if (this.lostAt[dependency] >= began) {
          this.again = true; // lost while this check ran: its answer is already old
        } else {
          checks[dependency] = 'up';
          this.upSince[dependency] = began;
        }
      }
      this.state = { checks, checkedAt: new Date() };
    })().finally(() => {
      this.inflight = undefined;
      if (this.stopped) return;
      const soon = this.again;
      this.again = false;
      this.timer = setTimeout(() => void this.refresh(), soon ? AGAIN_MS : REFRESH_MS);
      this.timer.unref();
    });
    return this.inflight;
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
