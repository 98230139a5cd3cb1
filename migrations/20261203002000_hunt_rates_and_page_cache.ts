import type { Knex } from 'knex';

/**
 * Issue 34: hunt that discovers.
 *
 * `hunt_exchange_rates` (hunt): the ECB's euro reference rates, one row per day and currency (units per 1 EUR, the
 *   decimal string as published), written by the `hunt.rates` sweep when ECB_RATES_URL is set; the newest day is what
 *   hunt compares prices with, else the dated snapshot shipped in jobs/hunt/ecb-reference-rates.json.
 * `hunt_http_cache` (hunt): pages hunt read, with their HTTP cache policy (http-cache-semantics), so a page read again
 *   is revalidated (ETag / Last-Modified) or served fresh without a request; bounded by HUNT_HTTP_CACHE_MAX_ROWS
 *   (oldest stored go first).
 * New tables: nothing live is locked or rewritten.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('hunt_exchange_rates', (t) => {
    t.date('day').notNullable();
    t.text('currency').notNullable();
    t.text('rate').notNullable();
    t.text('source').notNullable();
    t.timestamp('fetched_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['day', 'currency']);
  });
  await knex.schema.createTable('hunt_http_cache', (t) => {
    t.text('url_hash').primary();
    t.text('url').notNullable();
    t.jsonb('policy').notNullable();
    t.integer('status').notNullable();
    t.text('content_type').notNullable();
    t.binary('body').notNullable();
    t.integer('bytes').notNullable();
    t.timestamp('stored_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX hunt_http_cache_stored ON hunt_http_cache (stored_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('hunt_http_cache');
  await knex.schema.dropTable('hunt_exchange_rates');
}
