import type { Knex } from 'knex';

/** Proof cards by run: deleting a run cascades here, and without this index each delete scans the whole table. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS proof_cards_run ON proof_cards (run_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS proof_cards_run');
}
