import type { Knex } from 'knex';

/**
 * Issue 29, item 4: per-account admission (jobs/orchestrator/admission.ts).
 *
 * A run in flight holds one of its account's places, `slot` 0..N-1. The unique index counts only runs queued or
 * running, so a place frees by itself when the run comes to rest (no write releases it, and none can be forgotten);
 * two submissions racing for the last place cannot both take it. A run beyond its account's places is held:
 * `held_at` set, no slot, no job, in submission order on `runs_held` until a place frees. `run_admissions` keeps per
 * account the limit its plan gives, how many runs it holds (so the hard cap on held runs is one row, not a count)
 * and when it last had one admitted (the sweep serves the least recently admitted account first).
 *
 * New nullable columns without defaults and a new table: no rewrite. The indexes are built in the migration's
 * transaction (knex runs each migration in one): `runs` holds only unfinished rows in these predicates.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('runs', (t) => {
    t.smallint('slot');
    t.timestamp('held_at', { useTz: true });
  });
  await knex.raw(
    `CREATE UNIQUE INDEX runs_account_slots ON runs (account_id, slot)
     WHERE slot IS NOT NULL AND status IN ('queued', 'running')`,
  );
  await knex.raw(
    `CREATE INDEX runs_held ON runs (account_id, held_at, id) WHERE held_at IS NOT NULL AND status = 'queued'`,
  );
  await knex.schema.createTable('run_admissions', (t) => {
    t.text('account_id').primary().references('accounts.id').onDelete('CASCADE');
    t.integer('cap').notNullable();
    t.integer('held').notNullable().defaultTo(0);
    t.timestamp('last_admitted_at', { useTz: true });
    t.integer('admit_interval_ms');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('run_admissions');
  await knex.raw('DROP INDEX IF EXISTS runs_held');
  await knex.raw('DROP INDEX IF EXISTS runs_account_slots');
  await knex.schema.alterTable('runs', (t) => {
    t.dropColumn('held_at');
    t.dropColumn('slot');
  });
}
