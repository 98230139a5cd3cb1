import type { Knex } from 'knex';
import { buildIndexesConcurrently } from '../shared/db/concurrent-indexes.js';

/**
 * Issue 32, the inbox: who an item waiting for a person is assigned to and who claimed it, the files handed in as a
 * mission's proof, the notifications of new, escalated and expired items (an outbox: one row per recipient and
 * channel, written in the transaction of the change), and what each member chooses to be told.
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.schema.createTable('inbox_assignments', (t) => {
      t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
      // A waitpoint id (wait_…) or a mission id (prx_…).
      t.text('item_id').notNullable();
      t.text('assignee');
      t.text('assigned_by');
      t.timestamp('assigned_at', { useTz: true });
      t.text('claimed_by');
      t.timestamp('claimed_at', { useTz: true });
      t.timestamp('claim_expires_at', { useTz: true });
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.primary(['account_id', 'item_id']);
      t.index(['account_id', 'assignee']);
    });

    await trx.schema.createTable('inbox_files', (t) => {
      t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
      t.text('item_id').notNullable();
      t.text('sha256').notNullable();
      t.text('proof_item').notNullable();
      t.text('name').notNullable();
      t.text('content_type').notNullable();
      t.integer('size').notNullable();
      t.binary('data').notNullable();
      t.text('created_by');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.primary(['account_id', 'item_id', 'sha256']);
    });

    await trx.schema.createTable('inbox_notifications', (t) => {
      t.text('id').primary();
      t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
      t.text('item_id').notNullable();
      // created | escalated | expired
      t.text('event').notNullable();
      t.text('member_id').notNullable();
      // email | chat
      t.text('channel').notNullable();
      // pending → sending → sent | skipped | failed
      t.text('status').notNullable().defaultTo('pending');
      t.jsonb('message').notNullable();
      t.text('bridge_action_id');
      t.integer('attempts').notNullable().defaultTo(0);
      t.timestamp('claimed_at', { useTz: true });
      t.timestamp('sent_at', { useTz: true });
      t.text('error');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      // One notification of an event per member and channel, however often the event is noticed.
      t.unique(['account_id', 'item_id', 'event', 'member_id', 'channel']);
    });
    await trx.raw(
      'CREATE INDEX inbox_notifications_unsent ON inbox_notifications (created_at) ' +
        "WHERE status IN ('pending', 'sending')",
    );

    await trx.schema.createTable('inbox_preferences', (t) => {
      t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
      t.text('member_id').notNullable();
      t.jsonb('choices').notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.primary(['account_id', 'member_id']);
    });
  });
  // The inbox lists an account's open waitpoints: without this, every listing reads all of them. Built without
  // locking the engine's writes to waitpoints (outside the transaction, as in 20261201001000_pay_stripe.ts).
  await buildIndexesConcurrently(knex, [
    [
      'waitpoints_open_account',
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS waitpoints_open_account ON waitpoints (account_id, created_at) ' +
        'WHERE resolved_at IS NULL',
    ],
  ]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX CONCURRENTLY IF EXISTS waitpoints_open_account');
  for (const table of ['inbox_preferences', 'inbox_notifications', 'inbox_files', 'inbox_assignments'])
    await knex.schema.dropTableIfExists(table);
}
