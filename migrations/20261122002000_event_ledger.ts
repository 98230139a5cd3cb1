import type { Knex } from 'knex';

/** Webhook subscriptions and the delivery ledger (one row per attempt; retries are children). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('subscriptions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('endpoint').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.text('status').notNullable().defaultTo('active');
    t.text('secret').notNullable();
    t.text('previous_secret');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    t.text('description');
    t.timestamp('failing_since', { useTz: true });
    t.text('disabled_reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id']);
  });
  await knex.raw(
    "ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_status CHECK (status IN ('active','paused','disabled'))",
  );

  await knex.schema.createTable('deliveries', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('event_id').notNullable().references('events.id').onDelete('CASCADE');
    t.text('subscription_id').notNullable().references('subscriptions.id').onDelete('CASCADE');
    t.text('root_id').notNullable();
    t.text('parent_id').references('deliveries.id');
    t.integer('attempt').notNullable().defaultTo(1);
    t.text('status').notNullable().defaultTo('queued');
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('lease_token');
    t.timestamp('lease_expires_at', { useTz: true });
    t.text('claimed_by');
    t.integer('response_status');
    t.text('response_excerpt');
    t.text('error');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.index(['account_id', 'created_at']);
    t.index(['root_id']);
  });
  await knex.raw(
    'ALTER TABLE deliveries ADD CONSTRAINT deliveries_status CHECK (status IN ' +
      "('queued','claimed','completed','failed','canceled'))",
  );
  // Fan-out is idempotent: one root attempt per (event, subscription).
  await knex.raw(
    'CREATE UNIQUE INDEX deliveries_one_root ON deliveries (event_id, subscription_id) WHERE parent_id IS NULL',
  );
  await knex.raw("CREATE INDEX deliveries_ready ON deliveries (next_attempt_at) WHERE status = 'queued'");
  await knex.raw("CREATE INDEX deliveries_leased ON deliveries (lease_expires_at) WHERE status = 'claimed'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('deliveries');
  await knex.schema.dropTableIfExists('subscriptions');
}
