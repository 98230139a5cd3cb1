import type { Knex } from 'knex';

/**
 * Issue 33 item 4: incidents as records (the incident module).
 *
 * `incidents`: one per alert fingerprint while it is open. `open_key` holds the fingerprint until the incident is
 *   resolved and is NULL after, so the unique (account_id, open_key) lets one open incident exist per fingerprint
 *   (two requests racing on one alert make one incident) while a later firing of a resolved alert opens a new one.
 *   What it paged (`page_action_id`, the bridge action of the PagerDuty trigger) is recorded in the transaction that
 *   writes that action, so a repeated alert never pages twice.
 * `incident_timeline`: what happened, oldest first; entries read from the alerts carry a `dedup` key so an alert
 *   repeated adds nothing.
 * `incident_runs`: the runs linked to an incident.
 * New tables only: nothing live is locked or rewritten.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('incidents', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('fingerprint').notNullable();
    t.text('open_key');
    t.text('title').notNullable();
    // triggered | acknowledged | mitigated | resolved (jobs/incident/machine.ts)
    t.text('status').notNullable();
    t.text('severity').notNullable();
    t.text('severity_rule').notNullable();
    t.jsonb('services').notNullable().defaultTo('[]');
    t.jsonb('roles').notNullable().defaultTo('[]');
    t.jsonb('alerts').notNullable().defaultTo('[]');
    t.jsonb('approvals').notNullable().defaultTo('[]');
    t.integer('alert_count').notNullable().defaultTo(0);
    t.jsonb('chat');
    t.integer('chat_seq').notNullable().defaultTo(0);
    t.text('page_action_id');
    t.jsonb('postmortem');
    t.timestamp('started_at', { useTz: true });
    t.timestamp('acknowledged_at', { useTz: true });
    t.timestamp('mitigated_at', { useTz: true });
    t.timestamp('resolved_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'open_key']);
    t.index(['account_id', 'status', 'id']);
  });
  await knex.schema.createTable('incident_timeline', (t) => {
    t.text('id').primary();
    t.text('incident_id').notNullable().references('incidents.id').onDelete('CASCADE');
    t.text('account_id').notNullable();
    t.timestamp('at', { useTz: true }).notNullable();
    // alert | signal | status | severity | role | note | page | chat | run
    t.text('kind').notNullable();
    t.text('text').notNullable();
    t.text('actor');
    t.text('dedup');
    t.jsonb('data');
    t.unique(['incident_id', 'dedup']);
    t.index(['incident_id', 'at']);
  });
  await knex.schema.createTable('incident_runs', (t) => {
    t.text('incident_id').notNullable().references('incidents.id').onDelete('CASCADE');
    t.text('run_id').notNullable();
    t.text('account_id').notNullable();
    t.timestamp('linked_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['incident_id', 'run_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['incident_runs', 'incident_timeline', 'incidents']) await knex.schema.dropTableIfExists(table);
}
