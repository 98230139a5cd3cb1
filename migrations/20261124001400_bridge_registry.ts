import type { Knex } from 'knex';

/**
 * The bridge registry: connectors (a caller-chosen `connector_id`, unique in
 * its account, beside the sortable `id` the lists page on) and connection
 * sessions scoped to one connector. Credentials are stored as references
 * (`env:NAME`) only; no column holds a secret value. Lists page newest first
 * on `id` within the account, as every list does.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('connectors', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('connector_id').notNullable();
    t.text('kind').notNullable();
    t.specificType('caps', 'text[]').notNullable();
    t.text('endpoint').notNullable();
    t.jsonb('credential');
    t.jsonb('scopes').notNullable().defaultTo('[]');
    t.text('status').notNullable().defaultTo('active');
    t.text('status_reason');
    t.text('template_id');
    t.jsonb('last_preflight');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'connector_id'], { indexName: 'connectors_account_connector' });
    t.index(['account_id', 'id'], 'connectors_account_page');
  });
  await knex.schema.createTable('connection_sessions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('connector_pk').notNullable().references('connectors.id').onDelete('CASCADE');
    // The connector's stable id, kept beside the key so lists filter and show it without a join.
    t.text('connector_id').notNullable();
    t.specificType('actions', 'text[]').notNullable();
    // NULL: not narrowed beyond what the connector's scopes allow for the session's actions.
    t.specificType('resources', 'text[]');
    t.text('status').notNullable().defaultTo('active');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoked_reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id'], 'connection_sessions_account_page');
    t.index(['account_id', 'connector_id', 'id'], 'connection_sessions_account_connector_page');
    t.index(['connector_pk'], 'connection_sessions_connector');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('connection_sessions');
  await knex.schema.dropTableIfExists('connectors');
}
