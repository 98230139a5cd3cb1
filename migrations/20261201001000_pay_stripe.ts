import type { Knex } from 'knex';
import { buildIndexesConcurrently } from '../shared/db/concurrent-indexes.js';

/**
 * Issue 31: money that really moves (Stripe).
 *
 * - `pay_mandates.provider_backing`: a Stripe Customer and its saved PaymentMethod behind the mandate, and the
 *   connector that reaches that Stripe account; NULL: the internal ledger settles.
 * - `pay_receipts` gain a status (`settled` for every receipt so far: the ledger settles at once), what the provider
 *   said (`provider_status`, `provider_error`), the connector, how much was refunded, and `confirm_attempts`; a
 *   receipt under a Stripe-backed mandate is written `pending` without a provider reference (its PaymentIntent is
 *   created after commit, with the receipt id as Stripe's Idempotency-Key), hence `provider_ref` may be NULL now.
 * - `pay_refunds`: one row per refund asked for, its status from Stripe.
 * - `pay_provider_events`: each provider webhook event once, by connector and the provider's event id.
 *
 * The new columns have constant defaults (no rewrite); the indexes on pay_receipts are built CONCURRENTLY outside a
 * transaction, as in 20261130001000_pending_sweeps.ts.
 */
export const config = { transaction: false };

const INDEXES: Array<[name: string, sql: string]> = [
  [
    'pay_receipts_pending',
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS pay_receipts_pending ON pay_receipts (updated_at)
     WHERE status = 'pending'`,
  ],
  [
    'pay_receipts_provider_ref',
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS pay_receipts_provider_ref ON pay_receipts (provider_ref)
     WHERE provider_ref IS NOT NULL`,
  ],
];

export async function up(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw("SET LOCAL lock_timeout = '10s'");
    await trx.raw('ALTER TABLE pay_mandates ADD COLUMN IF NOT EXISTS provider_backing jsonb');
    await trx.raw(
      `ALTER TABLE pay_receipts ADD COLUMN IF NOT EXISTS status text NOT NULL DEFAULT 'settled',
         ADD COLUMN IF NOT EXISTS provider_status text,
         ADD COLUMN IF NOT EXISTS provider_error jsonb,
         ADD COLUMN IF NOT EXISTS connector_pk text,
         ADD COLUMN IF NOT EXISTS refunded_minor bigint NOT NULL DEFAULT 0,
         ADD COLUMN IF NOT EXISTS confirm_attempts integer NOT NULL DEFAULT 0,
         ADD COLUMN IF NOT EXISTS updated_at timestamptz NOT NULL DEFAULT now(),
         ALTER COLUMN provider_ref DROP NOT NULL`,
    );
    // Refunds never pass what was paid. NOT VALID: every existing row has refunded_minor 0; new writes are checked.
    await trx.raw(
      `ALTER TABLE pay_receipts ADD CONSTRAINT pay_receipts_refund_within CHECK (refunded_minor >= 0 AND
         refunded_minor <= amount_minor) NOT VALID`,
    );
    await trx.schema.createTable('pay_refunds', (t) => {
      t.text('id').primary();
      t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
      t.text('receipt_id').notNullable().references('pay_receipts.id').onDelete('CASCADE');
      t.bigInteger('amount_minor').notNullable();
      t.text('currency').notNullable();
      t.text('reason');
      // pending → succeeded | failed | canceled (Stripe's words; requires_action is kept as pending).
      t.text('status').notNullable().defaultTo('pending');
      t.text('provider_ref');
      t.jsonb('provider_error');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['receipt_id', 'id'], 'pay_refunds_receipt');
      t.index(['provider_ref'], 'pay_refunds_provider_ref');
    });
    await trx.raw('ALTER TABLE pay_refunds ADD CONSTRAINT pay_refunds_positive CHECK (amount_minor > 0)');
    await trx.schema.createTable('pay_provider_events', (t) => {
      t.text('connector_pk').notNullable();
      t.text('event_id').notNullable();
      t.text('type').notNullable();
      t.jsonb('result').notNullable().defaultTo('{}');
      t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.primary(['connector_pk', 'event_id']);
    });
  });
  await buildIndexesConcurrently(knex, INDEXES);
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`DROP INDEX IF EXISTS ${name}`);
  await knex.schema.dropTableIfExists('pay_provider_events');
  await knex.schema.dropTableIfExists('pay_refunds');
  await knex.raw('ALTER TABLE pay_receipts DROP CONSTRAINT IF EXISTS pay_receipts_refund_within');
  await knex.raw(
    `ALTER TABLE pay_receipts DROP COLUMN IF EXISTS status, DROP COLUMN IF EXISTS provider_status,
       DROP COLUMN IF EXISTS provider_error, DROP COLUMN IF EXISTS connector_pk, DROP COLUMN IF EXISTS refunded_minor,
       DROP COLUMN IF EXISTS confirm_attempts, DROP COLUMN IF EXISTS updated_at`,
  );
  await knex.raw('ALTER TABLE pay_mandates DROP COLUMN IF EXISTS provider_backing');
}
