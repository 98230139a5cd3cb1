import type { Knex } from 'knex';

/** Accounts, their API tokens, queued mail, idempotency records and usage counters. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    t.text('id').primary();
    t.text('email').notNullable();
    t.text('name').notNullable();
    t.text('password_hash').notNullable();
    t.text('plan').notNullable().defaultTo('builder');
    t.text('status').notNullable().defaultTo('pending');
    t.integer('unverified_used').notNullable().defaultTo(0);
    t.text('activation_hash');
    t.timestamp('activated_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE UNIQUE INDEX accounts_email_lower ON accounts (lower(email))');
  await knex.raw("ALTER TABLE accounts ADD CONSTRAINT accounts_plan CHECK (plan IN ('builder','team'))");
  await knex.raw("ALTER TABLE accounts ADD CONSTRAINT accounts_status CHECK (status IN ('pending','active'))");

  await knex.schema.createTable('api_tokens', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('prefix').notNullable();
    t.text('token_hash').notNullable().unique();
    t.specificType('scopes', 'text[]').notNullable();
    t.text('status').notNullable().defaultTo('active');
    t.text('rotated_from');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['account_id']);
  });

  await knex.schema.createTable('outbound_mails', (t) => {
    t.text('id').primary();
    t.text('account_id').references('accounts.id').onDelete('CASCADE');
    t.text('to_address').notNullable();
    t.text('subject').notNullable();
    t.text('text_body').notNullable();
    t.text('status').notNullable();
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('account_id').notNullable();
    t.text('key').notNullable();
    t.text('request_hash').notNullable();
    t.integer('status_code');
    t.jsonb('response_body');
    t.jsonb('response_headers');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['account_id', 'key']);
    t.index(['created_at']);
  });

  await knex.schema.createTable('usage_counters', (t) => {
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('period').notNullable();
    t.integer('workflow_requests').notNullable().defaultTo(0);
    t.primary(['account_id', 'period']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['usage_counters', 'idempotency_keys', 'outbound_mails', 'api_tokens', 'accounts']) {
    await knex.schema.dropTableIfExists(table);
  }
}
