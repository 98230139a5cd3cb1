import type { Knex } from 'knex';

/**
 * Attempts of a paused subscription are held, not dropped: `held` keeps them
 * queued but out of every claim until the subscription is resumed. The
 * ready index leaves held rows out, so a subscription paused for days with
 * thousands of events waiting costs the claims of everyone else nothing. A
 * partial index by subscription serves the hold and release statements.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('deliveries', (t) => {
    t.boolean('held').notNullable().defaultTo(false);
  });
  await knex.raw('DROP INDEX IF EXISTS deliveries_ready');
  await knex.raw(
    "CREATE INDEX deliveries_ready ON deliveries (mode, next_attempt_at, id) WHERE status = 'queued' AND NOT held",
  );
  await knex.raw(
    "CREATE INDEX deliveries_queued_by_subscription ON deliveries (subscription_id) WHERE status = 'queued'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS deliveries_queued_by_subscription');
  await knex.raw('DROP INDEX IF EXISTS deliveries_ready');
  await knex.raw("CREATE INDEX deliveries_ready ON deliveries (mode, next_attempt_at, id) WHERE status = 'queued'");
  await knex.schema.alterTable('deliveries', (t) => t.dropColumn('held'));
}
