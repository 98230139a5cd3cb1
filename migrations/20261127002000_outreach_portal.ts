import type { Knex } from 'knex';

/**
 * Outreach compliance and portals (issue 20). Suppressions are unique per
 * (account, normalised recipient). Every outreach decision is kept, whoever
 * asked (the evaluate route, a bridge action, a proxy mission), for audit.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('outreach_suppressions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('recipient').notNullable();
    t.text('reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'recipient'], { indexName: 'outreach_suppressions_account_recipient' });
    t.index(['account_id', 'id'], 'outreach_suppressions_account_page');
  });
  await knex.schema.createTable('outreach_decisions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('channel').notNullable();
    t.text('recipient').notNullable();
    t.text('purpose');
    t.text('lawful_basis');
    t.text('decision').notNullable();
    t.jsonb('reasons').notNullable();
    t.timestamp('not_before', { useTz: true });
    t.text('source').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id'], 'outreach_decisions_account_page');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('outreach_decisions');
  await knex.schema.dropTable('outreach_suppressions');
}
