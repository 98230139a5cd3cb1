import type { Knex } from 'knex';

/**
 * The agent registry and A2A envelopes. Agents page newest first on their
 * internal `id` (the client names them with `agent_id`, unique per account);
 * envelopes on `id` (msgId), with an index per list filter in the shape
 * `(account_id, <filter>, id)` as the other lists have.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('agents', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('agent_id').notNullable();
    t.text('name').notNullable();
    t.jsonb('card').notNullable();
    t.specificType('domains', 'text[]').notNullable();
    t.specificType('capabilities', 'text[]').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'agent_id']);
    t.index(['account_id', 'id'], 'agents_account_page');
  });
  await knex.schema.createTable('a2a_envelopes', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('plan_id');
    t.text('kind').notNullable();
    t.text('sender').notNullable();
    t.text('recipient').notNullable();
    t.text('run_id').references('runs.id').onDelete('SET NULL');
    t.text('task_id').references('tasks.id').onDelete('SET NULL');
    t.jsonb('payload').notNullable();
    t.text('status').notNullable();
    t.jsonb('result');
    t.text('error');
    t.jsonb('history').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id'], 'envelopes_account_page');
    t.index(['account_id', 'status', 'id'], 'envelopes_account_status_page');
    t.index(['account_id', 'recipient', 'id'], 'envelopes_account_recipient_page');
    t.index(['account_id', 'plan_id', 'id'], 'envelopes_account_plan_page');
    // Lead with the run (task): a list by run pages on them, and a run's delete finds its envelopes without a scan.
    t.index(['run_id', 'id'], 'envelopes_run_page');
    t.index(['task_id', 'id'], 'envelopes_task_page');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('a2a_envelopes');
  await knex.schema.dropTableIfExists('agents');
}
