import type { Knex } from 'knex';

/**
 * Outreach compliance and portals (issue 20). Suppressions are unique per
 * (account, normalised recipient). Every outreach decision is kept, whoever
 * asked (the evaluate route, a bridge action, a proxy mission), for audit.
 * A portal session holds credential references only (never values) and its
 * last preflight; a portal action its steps, inputs and the artefacts of
 * its last run (screenshots by their SHA-256, stored once however often they recur).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('outreach_suppressions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('recipient').notNullable();
    t.text('reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'recipient'], { indexName: 'outreach_suppressions_account_recipient' });
    t.index(['account_id', 'id'], 'outreach_suppressions_account_page');
  });
  await knex.schema.createTable('outreach_decisions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('channel').notNullable();
    t.text('recipient').notNullable();
    t.text('purpose');
    t.text('lawful_basis');
    t.text('decision').notNullable();
    t.jsonb('reasons').notNullable();
    t.timestamp('not_before', { useTz: true });
    t.text('source').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id'], 'outreach_decisions_account_page');
  });
  await knex.schema.createTable('portal_sessions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('connector_id');
    t.text('target_origin').notNullable();
    t.jsonb('credentials').notNullable();
    t.jsonb('scope').notNullable();
    t.text('mfa_method').notNullable();
    t.jsonb('preflight');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id'], 'portal_sessions_account_page');
  });
  await knex.schema.createTable('portal_actions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('session_id').notNullable().references('portal_sessions.id').onDelete('CASCADE');
    t.text('template_id');
    t.text('playbook_id');
    t.text('status').notNullable();
    t.jsonb('steps').notNullable();
    t.jsonb('inputs').notNullable();
    t.jsonb('artefacts').notNullable().defaultTo('[]');
    t.jsonb('extracted').notNullable().defaultTo('{}');
    t.jsonb('blocked');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.index(['account_id', 'id'], 'portal_actions_account_page');
  });
  await knex.schema.createTable('portal_screenshots', (t) => {
    t.text('sha256').primary();
    t.binary('png').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('portal_screenshots');
  await knex.schema.dropTable('portal_actions');
  await knex.schema.dropTable('portal_sessions');
  await knex.schema.dropTable('outreach_decisions');
  await knex.schema.dropTable('outreach_suppressions');
}
