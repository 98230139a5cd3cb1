import type { Knex } from 'knex';

/**
 * Dashboard sign-in sessions (issue 21). Only the SHA-256 of the cookie's
 * secret is stored, like API tokens; the CSRF token is stored as is (it is
 * shown to the signed-in page and proves only that a request came from it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dashboard_sessions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('secret_hash').notNullable().unique();
    t.text('csrf_token').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('signed_out_at', { useTz: true });
    t.index(['account_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('dashboard_sessions');
}
