import type { Knex } from 'knex';

/**
 * How many times the clock has re-driven a run that stopped making progress
 * (its flow lost or failed while Postgres or Redis was away). Each drive
 * enqueues the run's segment under fresh job ids, since BullMQ keeps a failed
 * job's id and ignores a re-add; past a few drives the run fails with a
 * stuckReason instead of looping.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('runs', (t) => {
    t.integer('drives').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('runs', (t) => {
    t.dropColumn('drives');
  });
}
