import type { Knex } from 'knex';

/**
 * Issue 28, item 5: a connector without a signing secret no longer has its provider callbacks accepted unsigned.
 * `callback_signing` is `required` (every connector, those already registered included: their unsigned callbacks are
 * refused from now on) or `unsigned`, the explicit development setting that production refuses.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('connectors', (t) => {
    t.text('callback_signing').notNullable().defaultTo('required');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('connectors', (t) => {
    t.dropColumn('callback_signing');
  });
}
