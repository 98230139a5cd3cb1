import type { Knex } from 'knex';

/** Tasks: the durable unit of work across domain handoffs, with an audit trail. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tasks', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('domain').notNullable();
    t.text('status').notNullable().defaultTo('open');
    t.jsonb('in_data').notNullable();
    t.jsonb('out_data');
    t.jsonb('state').notNullable().defaultTo('{}');
    t.text('user_id');
    t.text('channel').notNullable().defaultTo('api');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'created_at']);
  });
  await knex.schema.createTable('task_audit', (t) => {
    t.bigIncrements('id');
    t.text('task_id').notNullable().references('tasks.id').onDelete('CASCADE');
    t.text('account_id').notNullable();
    t.text('actor').notNullable();
    t.text('from_status');
    t.text('to_status').notNullable();
    t.text('note');
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['task_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('task_audit');
  await knex.schema.dropTableIfExists('tasks');
}
