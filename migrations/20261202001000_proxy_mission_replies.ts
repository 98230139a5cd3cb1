import type { Knex } from 'knex';

/**
 * Issue 31: the replies a mission's dispatch brought back (an SMS, a call's gathered answer, an email, a Slack
 * message), each with what the service read in it. A reply that does not settle the mission stays on it for a person
 * to judge. Nullable without a default: no rewrite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw("SET LOCAL lock_timeout = '10s'");
    await trx.raw('ALTER TABLE proxy_missions ADD COLUMN IF NOT EXISTS replies jsonb');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE proxy_missions DROP COLUMN IF EXISTS replies');
}
