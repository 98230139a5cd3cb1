import type { Knex } from 'knex';

/** Runs and everything a client needs to follow and steer them. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('runs', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('conversation_id');
    t.text('task_id').references('tasks.id').onDelete('SET NULL');
    t.text('status').notNullable();
    t.text('request').notNullable();
    t.jsonb('input').notNullable();
    t.specificType('route', 'text[]').notNullable();
    t.jsonb('routing').notNullable();
    t.integer('segment').notNullable().defaultTo(0);
    t.integer('event_seq').notNullable().defaultTo(0);
    t.jsonb('results').notNullable().defaultTo('{}');
    t.text('proof_card_id');
    t.text('error');
    t.text('stuck_reason');
    t.text('channel').notNullable().defaultTo('api');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.index(['account_id', 'created_at']);
    t.index(['account_id', 'conversation_id']);
  });
  await knex.raw(`CREATE INDEX runs_active ON runs (updated_at) WHERE status IN ('queued','running')`);

  await knex.schema.createTable('run_steps', (t) => {
    t.text('id').primary(); // {runId}.{segment}.{index}.{domain}, the job id
    t.text('run_id').notNullable().references('runs.id').onDelete('CASCADE');
    t.text('account_id').notNullable();
    t.integer('segment').notNullable();
    t.integer('idx').notNullable();
    t.text('domain').notNullable();
    t.text('status').notNullable();
    t.jsonb('output');
    t.jsonb('evidence');
    t.jsonb('conversation');
    t.jsonb('extra');
    t.text('error');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('started_at', { useTz: true });
    t.timestamp('heartbeat_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.index(['run_id']);
  });

  await knex.schema.createTable('run_events', (t) => {
    t.text('run_id').notNullable().references('runs.id').onDelete('CASCADE');
    t.integer('seq').notNullable();
    t.text('account_id').notNullable();
    t.text('type').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['run_id', 'seq']);
  });

  await knex.schema.createTable('waitpoints', (t) => {
    t.text('id').primary();
    t.text('run_id').notNullable().references('runs.id').onDelete('CASCADE');
    t.text('account_id').notNullable();
    t.text('kind').notNullable();
    t.integer('segment').notNullable();
    t.integer('step_index').notNullable();
    t.text('domain').notNullable();
    t.jsonb('payload').notNullable();
    t.jsonb('resolution');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('resolved_at', { useTz: true });
    t.index(['run_id']);
  });
  await knex.raw('CREATE UNIQUE INDEX waitpoints_one_open ON waitpoints (run_id) WHERE resolved_at IS NULL');

  await knex.schema.createTable('conversations', (t) => {
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('id').notNullable();
    t.text('last_run_id');
    t.integer('turns').notNullable().defaultTo(0);
    t.jsonb('context').notNullable().defaultTo('{}');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['account_id', 'id']);
  });

  await knex.schema.createTable('proof_cards', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('run_id').notNullable().references('runs.id').onDelete('CASCADE');
    t.text('decision_id').notNullable();
    t.jsonb('card').notNullable();
    t.jsonb('decision').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['proof_cards', 'conversations', 'waitpoints', 'run_events', 'run_steps', 'runs'])
    await knex.schema.dropTableIfExists(table);
}
