import type { Knex } from 'knex';

/**
 * Signals, signal rules and their matches; schedules and their firings
 * (issue 22). Lists page newest first on `id` with an index per filter in
 * the shape `(account_id, <filter>, id)`. Matching reads a type's active
 * rules; a rule's dedup window and rate limit read its recent matches; the
 * clock claims active schedules by `next_fire_at` (a partial index of the
 * active ones). One firing per (schedule, tick) is a unique index, so even a
 * bug in the claim could not record a tick twice; manual triggers are exempt.
 *
 * Then the four new scopes go to every token that holds the whole default
 * set as it was before them (a token narrowed on purpose stays narrow).
 */
export const OLD_DEFAULT_SCOPES = [
  'runs:read',
  'runs:write',
  'tasks:read',
  'tasks:write',
  'cases:read',
  'cases:write',
  'bridge:read',
  'bridge:write',
  'proxy:read',
  'proxy:write',
  'pay:read',
  'pay:write',
  'events:read',
  'events:write',
  'agents:read',
  'agents:write',
  'channels:read',
  'channels:write',
  'audit:read',
  'tools:use',
  'delivery:write',
  'tokens:manage',
];
const NEW_SCOPES = ['signals:read', 'signals:write', 'schedules:read', 'schedules:write'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('signals', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.text('subject').notNullable();
    t.jsonb('value');
    t.text('source').notNullable();
    t.text('source_id').notNullable();
    t.timestamp('observed_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'source', 'source_id'], { indexName: 'signals_account_source_id' });
    t.index(['account_id', 'id'], 'signals_account_page');
    t.index(['account_id', 'type', 'id'], 'signals_account_type_page');
    t.index(['account_id', 'subject', 'id'], 'signals_account_subject_page');
  });
  await knex.schema.createTable('signal_rules', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('signal_type').notNullable();
    t.jsonb('condition');
    t.jsonb('target').notNullable();
    t.text('status').notNullable().defaultTo('active');
    t.integer('dedup_window_seconds').notNullable().defaultTo(0);
    t.integer('max_runs_per_hour');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id'], 'signal_rules_account_page');
    t.index(['account_id', 'signal_type', 'status'], 'signal_rules_account_type');
  });
  await knex.schema.createTable('signal_matches', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('signal_id').notNullable().references('signals.id').onDelete('CASCADE');
    // A deleted rule's matches stay, as the record of what its signals started.
    t.text('rule_id').references('signal_rules.id').onDelete('SET NULL');
    t.text('subject').notNullable();
    t.text('outcome').notNullable();
    t.text('run_id').references('runs.id').onDelete('SET NULL');
    t.text('reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['signal_id'], 'signal_matches_signal');
    t.index(['rule_id', 'subject', 'created_at'], 'signal_matches_rule_subject');
    t.index(['rule_id', 'created_at'], 'signal_matches_rule_recent');
    t.index(['run_id'], 'signal_matches_run');
  });
  await knex.schema.createTable('schedules', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('cron').notNullable();
    t.text('timezone').notNullable();
    t.jsonb('target').notNullable();
    t.text('overlap').notNullable();
    t.text('catch_up').notNullable();
    t.text('status').notNullable().defaultTo('active');
    t.timestamp('next_fire_at', { useTz: true }).notNullable();
    t.timestamp('last_fired_at', { useTz: true });
    t.text('last_run_id').references('runs.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id'], 'schedules_account_page');
  });
  await knex.raw(`CREATE INDEX schedules_due ON schedules (next_fire_at) WHERE status = 'active'`);
  await knex.schema.createTable('schedule_firings', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('schedule_id').notNullable().references('schedules.id').onDelete('CASCADE');
    t.timestamp('scheduled_for', { useTz: true }).notNullable();
    t.text('trigger').notNullable();
    t.integer('missed').notNullable().defaultTo(0);
    t.text('outcome').notNullable();
    t.text('run_id').references('runs.id').onDelete('SET NULL');
    t.text('reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['schedule_id', 'id'], 'schedule_firings_schedule_page');
    t.index(['run_id'], 'schedule_firings_run');
  });
  // The overlap check looks for a firing still starting its run.
  await knex.raw(`CREATE INDEX schedule_firings_pending ON schedule_firings (schedule_id) WHERE outcome = 'pending'`);
  await knex.raw(
    `CREATE UNIQUE INDEX schedule_firings_one_per_tick ON schedule_firings (schedule_id, scheduled_for) ` +
      `WHERE trigger <> 'manual'`,
  );
  await grantNewScopes(knex);
}

/** The new scopes for every token holding the whole previous default set and none of them yet. */
export async function grantNewScopes(knex: Knex): Promise<number> {
  const result = await knex.raw(
    `UPDATE api_tokens SET scopes = scopes || ?::text[] WHERE scopes @> ?::text[] AND NOT scopes && ?::text[]`,
    [NEW_SCOPES, OLD_DEFAULT_SCOPES, NEW_SCOPES],
  );
  return result.rowCount ?? 0;
}

export async function down(knex: Knex): Promise<void> {
  for (const scope of NEW_SCOPES) await knex.raw('UPDATE api_tokens SET scopes = array_remove(scopes, ?)', [scope]);
  await knex.schema.dropTableIfExists('schedule_firings');
  await knex.schema.dropTableIfExists('schedules');
  await knex.schema.dropTableIfExists('signal_matches');
  await knex.schema.dropTableIfExists('signal_rules');
  await knex.schema.dropTableIfExists('signals');
}
