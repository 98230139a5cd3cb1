import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { TracedPgClient } from '../telemetry/postgres.js';

// int8 (bigint) columns hold money in minor units and counters; they fit in a JS number.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
// numeric stays exact as a string unless a repository converts it.

/** Where knex's own warnings go (connection errors while Postgres restarts); the console by default. */
export interface DbLog {
  warn(message: string): void;
  error(message: string): void;
}

/**
 * A knex instance on the pg driver. The pool is small: Postgres, not Node, is the bottleneck. The client is knex's
 * Postgres client with a span per statement while tracing runs (shared/telemetry/postgres.ts); otherwise the same.
 */
export function createDb(url: string, pool = { min: 0, max: 10 }, log?: DbLog): Knex {
  return knexFactory({
    client: TracedPgClient as unknown as typeof Knex.Client,
    connection: url,
    pool,
    acquireConnectionTimeout: 10_000,
    ...(log ? { log: { warn: log.warn, error: log.error, debug: () => undefined, deprecate: log.warn } } : {}),
  });
}

export type { Knex };
export type Db = Knex | Knex.Transaction;

/** ISO string for a timestamp column (null stays null). */
export function iso(value: Date | string | null | undefined): string | null {
  if (value == null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** The smallest round trip to Postgres (health checks, the local benchmark). */
export async function pingDb(db: Db): Promise<void> {
  await db.raw('select 1');
}

/**
 * A raw statement sent as a named prepared statement: each connection has
 * Postgres parse and plan it once, not at every call (the run engine's hot
 * statements spend as long in planning as in execution otherwise). `name`
 * must always go with the same text.
 */
export function prepared(db: Db, name: string, sql: string, bindings: readonly Knex.RawBinding[]) {
  return db.raw(sql, bindings as Knex.RawBinding[]).options({ name: `awp_${name}` });
}

type KnexPool = { numUsed(): number; numFree(): number; numPendingAcquires(): number };

/**
 * The pool of this process: connections in use, idle, and acquires waiting (for the metrics); null before the pool
 * exists.
 */
export function poolUsage({ db }: { db: Knex }): { used: number; free: number; pending: number } | null {
  const pool = (db.client as { pool?: KnexPool }).pool;
  return pool ? { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires() } : null;
}
