import type { Knex } from 'knex';

/**
 * Issue 26, separation of duties and waitpoints that expire: the account's
 * approval policy (which gate kinds its members may approve for their own
 * runs), autonomy grants and payment issuers as records made by the people
 * who answer for the account, who issued a mandate, and each waitpoint's
 * expiry and escalation.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('approval_policies', (t) => {
    t.text('account_id').primary().references('accounts.id').onDelete('CASCADE');
    // Gate kinds whose approvals the run's own submitter may give; empty: none (the default).
    t.specificType('self_approval', 'text[]').notNullable().defaultTo('{}');
    t.text('updated_by');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('autonomy_grants', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('created_by').notNullable();
    t.specificType('environments', 'text[]').notNullable();
    t.specificType('allowed_actions', 'text[]').notNullable();
    t.specificType('require_approval', 'text[]').notNullable().defaultTo('{}');
    t.boolean('allow_commands').notNullable().defaultTo(false);
    t.boolean('dry_run').notNullable().defaultTo(true);
    t.text('workdir');
    t.integer('max_actions').notNullable();
    t.integer('budget').notNullable();
    t.integer('used').notNullable().defaultTo(0);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoked_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id']);
  });
  await knex.raw(
    'ALTER TABLE autonomy_grants ADD CONSTRAINT autonomy_grants_budget CHECK (used >= 0 AND used <= budget)',
  );
  // One draw per run: a retried step finds its run's draw instead of spending the budget twice.
  await knex.schema.createTable('autonomy_grant_uses', (t) => {
    t.text('grant_id').notNullable().references('autonomy_grants.id').onDelete('CASCADE');
    t.text('run_id').notNullable();
    t.integer('actions').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['grant_id', 'run_id']);
  });

  await knex.schema.createTable('pay_issuers', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('entity_id').notNullable();
    t.jsonb('public_key').notNullable();
    t.text('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.index(['account_id', 'entity_id']);
  });

  await knex.schema.alterTable('pay_mandates', (t) => {
    t.text('approved_by');
    t.text('issuer_id');
  });

  await knex.schema.alterTable('waitpoints', (t) => {
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('escalated_at', { useTz: true });
  });
  await knex.raw(
    'CREATE INDEX waitpoints_open_expiry ON waitpoints (expires_at) WHERE resolved_at IS NULL AND expires_at ' +
      'IS NOT NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS waitpoints_open_expiry');
  await knex.schema.alterTable('waitpoints', (t) => {
    t.dropColumn('expires_at');
    t.dropColumn('escalated_at');
  });
  await knex.schema.alterTable('pay_mandates', (t) => {
    t.dropColumn('approved_by');
    t.dropColumn('issuer_id');
  });
  for (const table of ['pay_issuers', 'autonomy_grant_uses', 'autonomy_grants', 'approval_policies']) {
    await knex.schema.dropTableIfExists(table);
  }
}
