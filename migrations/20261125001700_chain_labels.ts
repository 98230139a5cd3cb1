import type { Knex } from 'knex';

/**
 * The account-managed address labels chain tracing matches hops against
 * (exchange, mixer, known scam, sanctioned, ...). One label per address and
 * chain family in an account; addresses of EVM chains are stored in lower case.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('chain_labels', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('family').notNullable();
    t.text('address').notNullable();
    t.text('kind').notNullable();
    t.text('name').notNullable();
    t.text('note');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'family', 'address']);
    t.index(['account_id', 'id'], 'chain_labels_account_page');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('chain_labels');
}
