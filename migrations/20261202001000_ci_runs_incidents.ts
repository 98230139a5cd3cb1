import type { Knex } from 'knex';

/**
 * Issue 33: delivery that follows the CI run it started, and incidents as records.
 *
 * - `delivery_ci_runs` (delivery): one row per delivery run whose deploy went out as a GitHub Actions
 *   `workflow_dispatch`: the dispatch's bridge action (its id is the correlation id the workflow shows in its run
 *   name), the workflow run once found, its state as last read, the re-run asked for, and when the run resting at
 *   `awaitingCi` was resumed with the outcome. The `delivery.ci` sweep reads the rows not yet resumed.
 * - `incidents` (incident): one open incident per account and alert fingerprint (Alertmanager's `fingerprint`,
 *   PagerDuty's dedup key): a repeat updates it; once resolved, the next firing opens a new one. The page sent for
 *   it (a bridge action) is named on the row, written in the transaction that opened it: once per incident.
 * - `incident_timeline` (incident): what happened to an incident, in order.
 *
 * All three are new tables: nothing live is locked or rewritten.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('delivery_ci_runs', (t) => {
    t.text('run_id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('connector_id').notNullable();
    t.text('owner').notNullable();
    t.text('repo').notNullable();
    t.text('workflow').notNullable();
    t.text('ref').notNullable();
    t.text('action_id').notNullable();
    t.bigInteger('gh_run_id');
    t.text('html_url');
    // The run attempt this follow waits for: 1, then one more for each re-run of failed jobs.
    t.integer('attempt').notNullable().defaultTo(1);
    t.text('rerun_action_id');
    t.text('status').notNullable().defaultTo('dispatching');
    t.text('conclusion');
    t.jsonb('failed_jobs');
    t.integer('checks').notNullable().defaultTo(0);
    t.timestamp('checked_at', { useTz: true });
    t.timestamp('resumed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    'CREATE INDEX delivery_ci_runs_following ON delivery_ci_runs (checked_at NULLS FIRST) WHERE resumed_at IS NULL',
  );

  await knex.schema.createTable('incidents', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('fingerprint').notNullable();
    t.text('source').notNullable();
    // open → acknowledged → mitigated → resolved (any of the first three may resolve).
    t.text('status').notNullable();
    t.text('severity').notNullable();
    t.text('title').notNullable();
    t.jsonb('services').notNullable().defaultTo('[]');
    t.jsonb('roles').notNullable().defaultTo('[]');
    t.specificType('linked_runs', 'text[]').notNullable().defaultTo('{}');
    t.integer('alert_count').notNullable().defaultTo(1);
    t.text('page_action_id');
    t.text('chat_connector_id');
    t.text('chat_channel');
    t.integer('chat_updates').notNullable().defaultTo(0);
    t.jsonb('postmortem');
    t.text('opened_by');
    t.timestamp('opened_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('resolved_at', { useTz: true });
    t.index(['account_id', 'opened_at']);
  });
  // The deduplication: at most one incident not yet resolved per alert fingerprint.
  await knex.raw(
    'CREATE UNIQUE INDEX incidents_open_fingerprint ON incidents (account_id, fingerprint) WHERE resolved_at IS NULL',
  );

  await knex.schema.createTable('incident_timeline', (t) => {
    t.bigIncrements('id').primary();
    t.text('incident_id').notNullable().references('incidents.id').onDelete('CASCADE');
    t.timestamp('at', { useTz: true }).notNullable();
    t.text('kind').notNullable();
    t.text('text').notNullable();
    t.text('source').notNullable();
    t.text('actor');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['incident_id', 'at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('incident_timeline');
  await knex.schema.dropTableIfExists('incidents');
  await knex.schema.dropTableIfExists('delivery_ci_runs');
}
