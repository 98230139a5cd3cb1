import type { Knex } from 'knex';

/**
 * Bridge actions and channels (issue 19). A connector may hold a Standard
 * Webhooks signing secret (`whsec_…`), stored as subscription secrets are
 * and never returned. A bridge action keeps its request summary, response,
 * proof and error beside its status; its `idempotency_key` is written once
 * and sent on every attempt. Threads upsert on (account, external_key);
 * callbacks are unique per (connector, external id) so a provider's retry
 * of the same callback is stored and reconciled once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('connectors', (t) => {
    t.text('signing_secret');
  });
  await knex.schema.createTable('channel_threads', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('external_key');
    t.text('channel').notNullable();
    t.text('subject');
    t.jsonb('participants').notNullable().defaultTo('[]');
    t.text('case_id');
    t.text('conversation_id');
    t.text('mission_id');
    t.text('provider_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'external_key'], { indexName: 'channel_threads_account_key' });
    t.index(['account_id', 'id'], 'channel_threads_account_page');
  });
  await knex.schema.createTable('bridge_actions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('connector_pk').references('connectors.id').onDelete('SET NULL');
    t.text('connector_id').notNullable();
    t.text('capability').notNullable();
    t.text('resource');
    t.jsonb('input').notNullable().defaultTo('{}');
    t.text('thread_id').references('channel_threads.id').onDelete('SET NULL');
    t.text('session_id');
    t.text('case_id');
    t.text('mission_id');
    t.text('hosting').notNullable();
    t.text('status').notNullable();
    t.text('idempotency_key').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.jsonb('request_summary');
    t.jsonb('response');
    t.jsonb('proof');
    t.jsonb('error');
    t.text('provider_ref');
    t.jsonb('history').notNullable().defaultTo('[]');
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('client_deadline', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id'], 'bridge_actions_account_page');
    t.index(['account_id', 'status', 'id'], 'bridge_actions_account_status_page');
    t.index(['account_id', 'connector_id', 'id'], 'bridge_actions_account_connector_page');
    t.index(['thread_id'], 'bridge_actions_thread');
    t.index(['mission_id'], 'bridge_actions_mission');
    t.index(['account_id', 'provider_ref'], 'bridge_actions_account_provider_ref');
  });
  await knex.schema.createTable('channel_touchpoints', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('thread_id').notNullable().references('channel_threads.id').onDelete('CASCADE');
    t.text('direction').notNullable();
    t.text('status').notNullable();
    t.text('body');
    t.jsonb('data').notNullable().defaultTo('{}');
    t.text('case_id');
    t.text('conversation_id');
    t.text('provider_id');
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id'], 'channel_touchpoints_account_page');
    t.index(['thread_id', 'at'], 'channel_touchpoints_thread_at');
  });
  await knex.schema.createTable('channel_callbacks', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('connector_pk').references('connectors.id').onDelete('SET NULL');
    t.text('connector_id').notNullable();
    t.text('external_id').notNullable();
    t.text('kind').notNullable();
    t.text('status');
    t.text('signature').notNullable();
    t.jsonb('refs').notNullable().defaultTo('{}');
    t.jsonb('payload').notNullable();
    t.text('thread_id').references('channel_threads.id').onDelete('SET NULL');
    t.jsonb('reconciliation');
    t.timestamp('reconciled_at', { useTz: true });
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'connector_id', 'external_id'], { indexName: 'channel_callbacks_external' });
    t.index(['account_id', 'id'], 'channel_callbacks_account_page');
    t.index(['thread_id'], 'channel_callbacks_thread');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('channel_callbacks');
  await knex.schema.dropTableIfExists('channel_touchpoints');
  await knex.schema.dropTableIfExists('bridge_actions');
  await knex.schema.dropTableIfExists('channel_threads');
  await knex.schema.alterTable('connectors', (t) => {
    t.dropColumn('signing_secret');
  });
}
