import type { Knex } from 'knex';

/** Hunt's `catalog` source: listings an account imports, searched with full-text ranking. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('catalog_listings', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('title').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.bigInteger('price_minor').notNullable();
    t.bigInteger('fees_minor').notNullable().defaultTo(0);
    t.text('currency').notNullable().defaultTo('USD');
    t.text('vendor');
    t.text('url');
    t.text('location');
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // array_to_string is only STABLE; for text[] it cannot change, so an IMMUTABLE wrapper may index it.
  await knex.raw(
    `CREATE OR REPLACE FUNCTION awp_tags_text(text[]) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT ` +
      `array_to_string($1, ' ') $$`,
  );
  await knex.raw(`ALTER TABLE catalog_listings ADD COLUMN search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
    setweight(to_tsvector('english', awp_tags_text(tags)), 'B') ||
    setweight(to_tsvector('english', coalesce(description, '') || ' ' || coalesce(vendor, '')), 'C')) STORED`);
  await knex.raw('CREATE INDEX catalog_search ON catalog_listings USING GIN (search)');
  await knex.raw('CREATE INDEX catalog_account ON catalog_listings (account_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('catalog_listings');
  await knex.raw('DROP FUNCTION IF EXISTS awp_tags_text(text[])');
}
