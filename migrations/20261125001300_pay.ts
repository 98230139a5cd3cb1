import type { Knex } from 'knex';

/**
 * Pay (issue 13): mandates, receipts, the internal ledger, and sealed proof
 * packs. Money is integer minor units (bigint) with its ISO 4217 code. A
 * mandate's `spent_minor` can never pass `max_minor` (a CHECK, under the row
 * lock the settlement takes); each receipt has one debit and one credit row
 * in the ledger, so every balance can be derived from the rows. A sealed
 * pack is stored as the exact canonical JSON that was hashed and signed, and
 * a trigger refuses any UPDATE of it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pay_mandates', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('task_id').notNullable().references('tasks.id').onDelete('CASCADE');
    t.text('currency').notNullable();
    t.bigInteger('max_minor').notNullable();
    t.bigInteger('spent_minor').notNullable().defaultTo(0);
    // NULL: any vendor.
    t.specificType('allowed_vendors', 'text[]');
    t.specificType('resolve_rules', 'text[]').notNullable().defaultTo('{}');
    // The constraints object as the client sent it (extra fields included), for display.
    t.jsonb('constraints').notNullable();
    t.jsonb('issuer');
    t.text('issuer_signature');
    // The RFC 8785 canonical JSON the issuer signed, kept as evidence of what was granted.
    t.text('signed_payload');
    t.text('status').notNullable().defaultTo('active');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoked_reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id'], 'pay_mandates_account_page');
    t.index(['account_id', 'task_id', 'id'], 'pay_mandates_account_task_page');
  });
  await knex.raw(
    'ALTER TABLE pay_mandates ADD CONSTRAINT pay_mandates_within_grant CHECK (max_minor > 0 AND spent_minor ' +
      '>= 0 AND spent_minor <= max_minor)',
  );

  await knex.schema.createTable('pay_receipts', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('mandate_id').notNullable().references('pay_mandates.id').onDelete('CASCADE');
    t.text('task_id').notNullable();
    // A receipt outlives the run's retention; the run is kept anyway (only its steps and events age out).
    t.text('run_id').references('runs.id').onDelete('SET NULL');
    t.text('vendor_id').notNullable();
    t.bigInteger('amount_minor').notNullable();
    t.text('currency').notNullable();
    t.text('pov_ref');
    t.text('provider').notNullable();
    t.text('provider_ref').notNullable();
    // A run's pay step settles at most once per key, even when its job is retried after a crash.
    t.text('settle_key');
    t.timestamp('settled_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id'], 'pay_receipts_account_page');
    t.index(['mandate_id', 'id'], 'pay_receipts_mandate');
    t.index(['run_id'], 'pay_receipts_run');
  });
  await knex.raw('ALTER TABLE pay_receipts ADD CONSTRAINT pay_receipts_positive CHECK (amount_minor > 0)');
  await knex.raw(
    'CREATE UNIQUE INDEX pay_receipts_settle_key ON pay_receipts (account_id, settle_key) WHERE settle_key IS NOT NULL',
  );

  await knex.schema.createTable('pay_ledger_entries', (t) => {
    t.bigIncrements('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    // Checked at commit: the provider posts its entries before the receipt row they belong to is written, in the same
    // transaction.
    t.text('receipt_id').notNullable().references('pay_receipts.id').onDelete('CASCADE').deferrable('deferred');
    // `mandate:<id>` (the grant drawn down) or `vendor:<vendorId>` (paid to the vendor).
    t.text('ledger_account').notNullable();
    t.text('direction').notNullable();
    t.bigInteger('amount_minor').notNullable();
    t.text('currency').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['receipt_id'], 'pay_ledger_receipt');
    t.index(['account_id', 'ledger_account'], 'pay_ledger_account');
  });
  await knex.raw(
    "ALTER TABLE pay_ledger_entries ADD CONSTRAINT pay_ledger_entry_valid CHECK (direction IN ('debit', " +
      "'credit') AND amount_minor > 0)",
  );

  // A task's newest run (the evidence a settlement through the API is checked against); neither column is ever updated,
  // so runs keep their HOT updates.
  await knex.raw('CREATE INDEX runs_task ON runs (task_id, id) WHERE task_id IS NOT NULL');

  await knex.schema.createTable('proof_packs', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    // No foreign key: a pack is self-contained evidence and does not depend on the run staying around.
    t.text('run_id').notNullable();
    t.text('document').notNullable();
    t.text('root_hash').notNullable();
    t.text('kid').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'run_id'], 'proof_packs_account_run');
  });
  await knex.raw(`CREATE FUNCTION proof_packs_sealed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'a sealed proof pack never changes (%)', OLD.id; END $$`);
  await knex.raw(
    'CREATE TRIGGER proof_packs_sealed BEFORE UPDATE ON proof_packs FOR EACH ROW EXECUTE FUNCTION proof_packs_sealed()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('proof_packs');
  await knex.raw('DROP INDEX IF EXISTS runs_task');
  await knex.raw('DROP FUNCTION IF EXISTS proof_packs_sealed()');
  await knex.schema.dropTableIfExists('pay_ledger_entries');
  await knex.schema.dropTableIfExists('pay_receipts');
  await knex.schema.dropTableIfExists('pay_mandates');
}
