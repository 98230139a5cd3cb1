import type { Knex } from 'knex';

/**
 * Proxy missions, the provider book and its verification history. Missions
 * page newest first on `id` with an index per list filter in the shape
 * `(account_id, <filter>, id)`; the outcome-by-reference lookups and the
 * clock's expiry sweep have their own (the sweep's only covers live missions).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('proxy_providers', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('phone');
    // Who the provider is within the account: its E.164 phone when known, else its name in lower case.
    t.text('identity').notNullable();
    t.text('status').notNullable().defaultTo('unverified');
    t.jsonb('availability');
    t.timestamp('verified_at', { useTz: true });
    t.text('verified_by');
    t.text('verified_mission_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'identity']);
    t.index(['account_id', 'id'], 'proxy_providers_account_page');
    t.index(['account_id', 'status', 'id'], 'proxy_providers_account_status_page');
  });
  await knex.schema.createTable('proxy_missions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('task_id').notNullable().references('tasks.id').onDelete('CASCADE');
    t.text('run_id').references('runs.id').onDelete('SET NULL');
    // The run step that created the mission: a retried step finds its mission instead of making a second one.
    t.text('step_id').unique();
    t.text('kind').notNullable();
    t.text('reason').notNullable();
    t.text('task').notNullable();
    t.jsonb('context').notNullable().defaultTo('{}');
    t.jsonb('voice_call');
    t.jsonb('channel_msg');
    t.specificType('proof_req', 'text[]').notNullable().defaultTo('{}');
    t.jsonb('resume');
    t.text('status').notNullable();
    t.text('assignee');
    t.jsonb('outcome');
    t.jsonb('proof');
    t.text('provider_id').references('proxy_providers.id').onDelete('SET NULL');
    t.text('provider_ref');
    t.text('callback_ref').notNullable().unique();
    t.text('request_id');
    t.jsonb('history').notNullable().defaultTo('[]');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('resolved_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id'], 'proxy_missions_account_page');
    t.index(['account_id', 'status', 'id'], 'proxy_missions_account_status_page');
    t.index(['account_id', 'kind', 'id'], 'proxy_missions_account_kind_page');
    t.index(['account_id', 'task_id', 'id'], 'proxy_missions_account_task_page');
    t.index(['run_id', 'id'], 'proxy_missions_run');
    t.index(['account_id', 'provider_ref'], 'proxy_missions_account_provider_ref');
    t.index(['account_id', 'provider_id'], 'proxy_missions_account_provider');
    t.index(['account_id', 'request_id'], 'proxy_missions_account_request');
  });
  // The clock's sweep reads only live missions (past their expiry, or whose run has ended): a few rows of a large
  // table.
  await knex.raw(
    `CREATE INDEX proxy_missions_live_expiry ON proxy_missions (expires_at) WHERE status IN ('open', 'inProgress')`,
  );
  await knex.schema.createTable('proxy_provider_verifications', (t) => {
    t.bigIncrements('id');
    t.text('provider_id').notNullable().references('proxy_providers.id').onDelete('CASCADE');
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('mission_id').notNullable().references('proxy_missions.id').onDelete('CASCADE');
    t.text('actor').notNullable();
    t.text('outcome_status').notNullable();
    t.jsonb('availability');
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['provider_id', 'id'], 'proxy_verifications_provider');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('proxy_provider_verifications');
  await knex.schema.dropTableIfExists('proxy_missions');
  await knex.schema.dropTableIfExists('proxy_providers');
}
