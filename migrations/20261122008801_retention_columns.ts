import type { Knex } from 'knex';

/**
 * What retention needs to remember (jobs/clock/retention.ts):
 * - runs: when a finished run's events and steps were trimmed, so each
 *   retention batch starts after the runs already done instead of rescanning
 *   them (their partial indexes are in the next migration);
 * - outbound_mails: the body becomes nullable and gets a SHA-256 beside it,
 *   because a mail body holds an activation token in plain text and is kept
 *   only as long as sending it needs.
 * Adding nullable columns without a default rewrites nothing, so this is quick on a large table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('runs', (t) => {
    t.timestamp('events_trimmed_at', { useTz: true });
    t.timestamp('steps_trimmed_at', { useTz: true });
  });
  await knex.schema.alterTable('outbound_mails', (t) => {
    t.text('body_sha256');
  });
  await knex.raw('ALTER TABLE outbound_mails ALTER COLUMN text_body DROP NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE outbound_mails SET text_body = '' WHERE text_body IS NULL`);
  await knex.raw('ALTER TABLE outbound_mails ALTER COLUMN text_body SET NOT NULL');
  await knex.schema.alterTable('outbound_mails', (t) => t.dropColumn('body_sha256'));
  await knex.schema.alterTable('runs', (t) => {
    t.dropColumn('events_trimmed_at');
    t.dropColumn('steps_trimmed_at');
  });
}
