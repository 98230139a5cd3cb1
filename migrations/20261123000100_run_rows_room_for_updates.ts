import type { Knex } from 'knex';

/**
 * A run row is updated about seven times in its life and its step rows twice
 * (start, completion; event_seq, updated_at and the step's outputs change, no
 * indexed column but a run's status). Room left free on each page lets
 * Postgres write those new versions on the same page (HOT updates): no new
 * index entries, less WAL, less vacuum. It applies to pages written from now
 * on; no rewrite, no lock beyond a brief one on the table's options.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE runs SET (fillfactor = 70)');
  await knex.raw('ALTER TABLE run_steps SET (fillfactor = 80)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE runs RESET (fillfactor)');
  await knex.raw('ALTER TABLE run_steps RESET (fillfactor)');
}
