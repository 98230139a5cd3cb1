import type { Knex } from 'knex';

/**
 * Case workspaces (issue 18): the case, its stakeholders, deadlines, action
 * items, the runs linked to it, and its timeline. Cases page newest first on
 * `id` within the account with an index per list filter; a case's parts are
 * read by case. The clock's deadline review reads only open deadlines (a
 * partial index on their due time). A stakeholder's contact is unique within
 * its case: its email in lower case, its phone as E.164.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('cases', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('external_key');
    t.text('title').notNullable();
    t.text('description');
    t.text('status').notNullable();
    t.text('priority').notNullable();
    t.text('task_id').references('tasks.id').onDelete('SET NULL');
    t.text('run_id').references('runs.id').onDelete('SET NULL');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.text('assignee');
    t.specificType('watchers', 'text[]').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'external_key'], { indexName: 'cases_account_external_key' });
    t.index(['account_id', 'id'], 'cases_account_page');
    t.index(['account_id', 'status', 'id'], 'cases_account_status_page');
    t.index(['account_id', 'priority', 'id'], 'cases_account_priority_page');
    t.index(['account_id', 'task_id', 'id'], 'cases_account_task_page');
  });
  await knex.schema.createTable('case_runs', (t) => {
    t.text('case_id').notNullable().references('cases.id').onDelete('CASCADE');
    t.text('run_id').notNullable().references('runs.id').onDelete('CASCADE');
    t.text('account_id').notNullable();
    t.timestamp('linked_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['case_id', 'run_id']);
    t.index(['run_id'], 'case_runs_run');
  });
  await knex.schema.createTable('case_stakeholders', (t) => {
    t.text('id').primary();
    t.text('case_id').notNullable().references('cases.id').onDelete('CASCADE');
    t.text('account_id').notNullable();
    t.text('name').notNullable();
    t.text('role').notNullable();
    t.text('email');
    t.text('phone');
    t.text('organisation');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'email'], 'case_stakeholders_account_email');
  });
  await knex.raw(
    'CREATE UNIQUE INDEX case_stakeholders_case_email ON case_stakeholders (case_id, email) WHERE email IS NOT NULL',
  );
  await knex.raw(
    'CREATE UNIQUE INDEX case_stakeholders_case_phone ON case_stakeholders (case_id, phone) WHERE phone IS NOT NULL',
  );
  await knex.schema.createTable('case_deadlines', (t) => {
    t.text('id').primary();
    t.text('case_id').notNullable().references('cases.id').onDelete('CASCADE');
    t.text('account_id').notNullable();
    t.text('title').notNullable();
    t.timestamp('due_at', { useTz: true }).notNullable();
    t.text('owner');
    t.text('status').notNullable();
    t.timestamp('settled_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['case_id', 'due_at'], 'case_deadlines_case');
  });
  await knex.raw(`CREATE INDEX case_deadlines_open_due ON case_deadlines (due_at) WHERE status = 'open'`);
  await knex.schema.createTable('case_actions', (t) => {
    t.text('id').primary();
    t.text('case_id').notNullable().references('cases.id').onDelete('CASCADE');
    t.text('account_id').notNullable();
    t.text('title').notNullable();
    t.text('description');
    t.text('status').notNullable();
    t.text('owner');
    t.timestamp('due_at', { useTz: true });
    t.jsonb('refs').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['case_id', 'id'], 'case_actions_case_page');
    t.index(['case_id', 'status', 'id'], 'case_actions_case_status_page');
  });
  await knex.schema.createTable('case_timeline', (t) => {
    t.text('id').primary();
    t.text('case_id').notNullable().references('cases.id').onDelete('CASCADE');
    t.text('account_id').notNullable();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('kind').notNullable();
    t.text('actor').notNullable();
    t.text('text').notNullable();
    t.jsonb('refs').notNullable().defaultTo('[]');
    t.jsonb('data').notNullable().defaultTo('{}');
    t.index(['case_id', 'at', 'id'], 'case_timeline_case_order');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['case_timeline', 'case_actions', 'case_deadlines', 'case_stakeholders', 'case_runs', 'cases'])
    await knex.schema.dropTableIfExists(table);
}
