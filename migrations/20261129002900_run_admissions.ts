import type { Knex } from 'knex';
import { buildIndexesConcurrently } from '../shared/db/concurrent-indexes.js';

/**
 * Issue 29, item 4: per-account admission (jobs/orchestrator/admission.ts).
 *
 * A run in flight holds one of its account's places, `slot` 0..N-1. The unique index counts only runs queued or
 * running, so a place frees by itself when the run comes to rest (no write releases it, and none can be forgotten);
 * two submissions racing for the last place cannot both take it. A run beyond its account's places is held:
 * `held_at` set, no slot, no job, in line on `runs_held` until a place frees. `run_admissions` keeps per account the
 * limit its plan gives, how many runs it holds (so the hard cap on held runs is one row, not a count) and its pace
 * of admissions (the sweep serves the least recently admitted account first; `Retry-After` comes from the pace).
 *
 * Nullable columns without defaults and a new table: no rewrite. The indexes are built CONCURRENTLY (so outside a
 * transaction, as in 20261122008802_list_and_retention_indexes.ts): `runs` keeps taking writes while they build, and
 * every statement may run again after an interruption.
 */
export const config = { transaction: false };

const INDEXES: Array<[name: string, sql: string]> = [
  [
    'runs_account_slots',
    `CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS runs_account_slots ON runs (account_id, slot)
     WHERE slot IS NOT NULL AND status IN ('queued', 'running')`,
  ],
  [
    'runs_held',
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_held ON runs (account_id, held_at, id)
     WHERE held_at IS NOT NULL AND status = 'queued'`,
  ],
];

export async function up(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    // The ALTER takes an ACCESS EXCLUSIVE lock for a moment: it gives up (and the migration can run again) rather
    // than queue every query on runs behind a long transaction.
    await trx.raw("SET LOCAL lock_timeout = '10s'");
    await trx.raw(
      'ALTER TABLE runs ADD COLUMN IF NOT EXISTS slot smallint, ADD COLUMN IF NOT EXISTS held_at timestamptz',
    );
    await trx.raw(
      `CREATE TABLE IF NOT EXISTS run_admissions (
         account_id text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
         cap integer NOT NULL,
         held integer NOT NULL DEFAULT 0,
         last_admitted_at timestamptz,
         admit_interval_ms integer)`,
    );
  });
  await buildIndexesConcurrently(knex, INDEXES);
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  await knex.raw('DROP TABLE IF EXISTS run_admissions');
  await knex.raw('ALTER TABLE runs DROP COLUMN IF EXISTS held_at, DROP COLUMN IF EXISTS slot');
}
