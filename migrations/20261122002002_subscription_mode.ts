import type { Knex } from 'knex';

/**
 * A subscription is delivered either by the service's dispatcher (`push`,
 * POSTs to its endpoint) or by the client's own workers through the ledger
 * routes (`pull`: claim, complete, fail). Separating them keeps the two kinds
 * of claimer from racing for the same attempts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.text('mode').notNullable().defaultTo('push');
  });
  await knex.raw("ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_mode CHECK (mode IN ('push','pull'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => t.dropColumn('mode'));
}
