import type { Knex } from 'knex';

/**
 * The integration event outbox. A row is written in the same transaction as
 * the state change it reports (shared/db/outbox.ts), so it exists if and
 * only if that change committed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('events', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.text('source').notNullable().defaultTo('service');
    t.text('subject');
    t.jsonb('payload').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('acked_at', { useTz: true });
    t.timestamp('fanned_out_at', { useTz: true });
    t.index(['account_id', 'created_at']);
    t.index(['account_id', 'type']);
  });
  await knex.raw('CREATE INDEX events_not_fanned ON events (created_at) WHERE fanned_out_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('events');
}
