import type { Knex } from 'knex';

/**
 * `events.source` says who wrote an event, the service or a client (POST /v1/events), from a closed set; the old `api`
 * value is `client`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE events SET source = 'client' WHERE source = 'api'`);
  await knex.raw("ALTER TABLE events ADD CONSTRAINT events_source CHECK (source IN ('service','client'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE events DROP CONSTRAINT IF EXISTS events_source');
  await knex.raw(`UPDATE events SET source = 'api' WHERE source = 'client'`);
}
