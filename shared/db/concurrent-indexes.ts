import type { Knex } from 'knex';

/** An index a migration builds outside its transaction: its name and its `CREATE INDEX CONCURRENTLY …` statement. */
export type ConcurrentIndex = readonly [name: string, sql: string];

/**
 * Builds each index without locking writes. An interrupted CONCURRENTLY build leaves an invalid index that
 * `IF NOT EXISTS` would keep, so one found invalid is dropped and built again.
 */
export async function buildIndexesConcurrently(knex: Knex, indexes: readonly ConcurrentIndex[]): Promise<void> {
  for (const [name, sql] of indexes) {
    const invalid = await knex.raw(
      'SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ? AND NOT i.indisvalid',
      [name],
    );
    if (invalid.rows.length > 0) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
    await knex.raw(sql);
  }
}
