import type { Knex } from 'knex';

/**
 * Issue 26, item 7: a schedule and a signal rule act within the grant of
 * whoever created them. `created_by` is that member, `grant_scopes` the
 * scopes of the token they used; at firing time the run gets those scopes
 * intersected with the member's current role (a disabled or removed member's
 * automation starts nothing). Rows from before this migration keep null in
 * both and start runs that hold `runs:write` only, as they did until now.
 */
export async function up(knex: Knex): Promise<void> {
  // migration-safe: foreign-key-without-not-valid: the column is added just before, in the same transaction, null
  // in every row: validating the key reads schedules and signal_rules (a row per schedule or rule) and looks nothing
  // up in members. (Applied before the check; a new migration would add the key NOT VALID and validate it apart.)
  for (const table of ['schedules', 'signal_rules']) {
    await knex.schema.alterTable(table, (t) => {
      t.text('created_by').references('members.id').onDelete('SET NULL');
      t.specificType('grant_scopes', 'text[]');
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['schedules', 'signal_rules']) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('created_by');
      t.dropColumn('grant_scopes');
    });
  }
}
