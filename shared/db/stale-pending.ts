import type { Db } from './knex.js';

/**
 * Rows of `table` (a record committed before the work it starts: a schedule firing, a signal match) still
 * `outcome = 'pending'` `olderThanSeconds` after their last touch, their start lost (a process died between the
 * commit and the outcome), oldest first. They are touched now, so another sweep at once takes others (SKIP LOCKED)
 * and the next one leaves these alone unless this one died too. The owning module names its own table.
 */
export async function claimStalePending<Row>(
  db: Db,
  table: string,
  olderThanSeconds: number,
  limit: number,
): Promise<Row[]> {
  const result = await db.raw(
    `UPDATE ?? SET updated_at = now()
     WHERE id IN (SELECT id FROM ?? WHERE outcome = 'pending' AND updated_at < now() - make_interval(secs => ?)
                  ORDER BY updated_at LIMIT ? FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [table, table, olderThanSeconds, limit],
  );
  return result.rows;
}
