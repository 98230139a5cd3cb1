import type { Knex } from 'knex';

/**
 * Envelope encryption and the credential vault (issue 26).
 *
 * `vault_data_keys`: one AES-256 data key per owner (an account id, or
 * `platform` for the service's own secrets such as the signing key), stored
 * only wrapped by the master key (AWP_MASTER_KEY), with the id of the master
 * key that wrapped it so a rotation can re-wrap without touching values.
 *
 * `credentials` / `credential_versions`: a tenant's credentials. A value is
 * stored only sealed (`awpv1:<dataKeyId>:<iv>:<ciphertext>`); rotation adds a
 * version and keeps the previous one until `expires_at`.
 *
 * `connectors.platform`: a connector an operator registered for every
 * account; only such a connector may hold `env:` references.
 *
 * Existing plaintext secrets (webhook secrets, connector signing secrets, the
 * signing key's private half) cannot be encrypted here: SQL does not know the
 * master key. They are sealed by `sealPlaintextSecrets` (shared/vault/backfill.ts)
 * right after the migrations, wherever migrations run (npm run migrate, npm start).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('vault_data_keys', (t) => {
    t.text('id').primary();
    t.text('owner').notNullable().unique();
    t.text('wrapped').notNullable();
    t.text('master_key_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('rewrapped_at', { useTz: true });
  });
  await knex.schema.createTable('credentials', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('kind').notNullable();
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.text('status').notNullable().defaultTo('active');
    t.integer('current_version').notNullable().defaultTo(1);
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'name']);
  });
  await knex.raw(`ALTER TABLE credentials ADD CONSTRAINT credentials_status CHECK (status IN ('active','disabled'))`);
  await knex.raw(`ALTER TABLE credentials ADD CONSTRAINT credentials_kind CHECK (kind IN
    ('apiKey','basic','bearer','oauth2ClientCredentials','oauth2RefreshToken','password','totpSeed','privateKey'))`);
  await knex.schema.createTable('credential_versions', (t) => {
    t.text('credential_id').notNullable().references('credentials.id').onDelete('CASCADE');
    t.integer('version').notNullable();
    t.text('sealed_value').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true });
    t.primary(['credential_id', 'version']);
  });
  await knex.schema.alterTable('connectors', (t) => {
    t.boolean('platform').notNullable().defaultTo(false);
  });
  await knex.raw('CREATE INDEX connectors_platform ON connectors (connector_id) WHERE platform');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS connectors_platform');
  await knex.schema.alterTable('connectors', (t) => t.dropColumn('platform'));
  await knex.schema.dropTable('credential_versions');
  await knex.schema.dropTable('credentials');
  await knex.schema.dropTable('vault_data_keys');
}
