import type { Knex } from 'knex';

/**
 * Issue 26, members: an invitation's one-time code (only its SHA-256, in
 * `members.activation_hash`) expires, so a mail forgotten in an inbox does
 * not stay a way into the account forever.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('members', (t) => {
    t.timestamp('invite_expires_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('members', (t) => t.dropColumn('invite_expires_at'));
}
