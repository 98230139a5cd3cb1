import type { Knex } from 'knex';

/**
 * A subscription is delivered either by the service's dispatcher (`push`,
 * POSTs to its endpoint) or by the client's own workers through the ledger
 * routes (`pull`: claim, complete, fail), so the two kinds of claimer never
 * race. The mode is fixed at creation and copied onto each attempt, so a
 * claim filters on the attempt row alone (an index in claim order per mode).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.text('mode').notNullable().defaultTo('push');
  });
  await knex.raw("ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_mode CHECK (mode IN ('push','pull'))");
  await knex.schema.alterTable('deliveries', (t) => {
    t.text('mode').notNullable().defaultTo('push');
  });
  await knex.raw('DROP INDEX IF EXISTS deliveries_ready');
  await knex.raw("CREATE INDEX deliveries_ready ON deliveries (mode, next_attempt_at, id) WHERE status = 'queued'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS deliveries_ready');
  await knex.raw("CREATE INDEX deliveries_ready ON deliveries (next_attempt_at, id) WHERE status = 'queued'");
  await knex.schema.alterTable('deliveries', (t) => t.dropColumn('mode'));
  await knex.schema.alterTable('subscriptions', (t) => t.dropColumn('mode'));
}
