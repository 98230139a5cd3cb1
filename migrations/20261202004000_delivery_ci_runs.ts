import type { Knex } from 'knex';

/**
 * Issue 33: delivery that follows the CI run it started.
 *
 * `delivery_ci_runs` (delivery): one row per delivery run whose deploy went out as a GitHub Actions
 *   `workflow_dispatch`: the dispatch's bridge action (its id is the correlation id the workflow shows in its run
 *   name), the workflow run once found, its state as last read, the re-run asked for, and when the run resting at
 *   `awaitingCi` was resumed with the outcome. The `delivery.ci` sweep reads the rows not yet resumed.
 * A new table: nothing live is locked or rewritten.
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
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('delivery_ci_runs');
}
