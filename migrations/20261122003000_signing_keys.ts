import type { Knex } from 'knex';

/**
 * The service's Ed25519 signing keys (proof packs). One row is current
 * (`retired_at` null; a partial unique index makes that structural, so
 * processes starting together cannot end up with two); retired rows stay so
 * their public halves remain published and old signatures keep verifying.
 * `private_key` is PKCS8 PEM for generated keys, null for a key whose private
 * half lives only in the SIGNING_KEY configuration.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('signing_keys', (t) => {
    t.text('kid').primary();
    t.jsonb('public_jwk').notNullable();
    t.text('private_key');
    t.text('source').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('retired_at', { useTz: true });
  });
  await knex.raw(
    "ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_source CHECK (source IN ('generated','config') AND " +
      "(source = 'config') = (private_key IS NULL))",
  );
  await knex.raw('CREATE UNIQUE INDEX signing_keys_one_current ON signing_keys ((true)) WHERE retired_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('signing_keys');
}
