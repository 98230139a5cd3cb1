import type { Knex } from 'knex';

/**
 * Idempotency keys: a replay goes only to the token that made the first
 * request (`token_id`); a claim holds its key for a short lease
 * (`claimed_until`, renewed while the request runs; `claim_id` names the
 * request holding it) so a crashed request frees its key; a response that
 * carried a secret is recorded as `secret_withheld`, without its body. Rows
 * already holding a secret (token and subscription secrets stored before
 * this) are deleted now rather than kept for the rest of their 24 h.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.text('token_id');
    t.text('claim_id');
    t.timestamp('claimed_until', { useTz: true });
    t.boolean('secret_withheld').notNullable().defaultTo(false);
  });
  await knex.raw(
    `DELETE FROM idempotency_keys WHERE jsonb_typeof(response_body) = 'object' AND ` +
      `jsonb_exists_any(response_body, array['token', 'secret'])`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.dropColumn('secret_withheld');
    t.dropColumn('claimed_until');
    t.dropColumn('claim_id');
    t.dropColumn('token_id');
  });
}
