import type { Knex } from 'knex';

/**
 * Keyset pagination on `id` (prefixed UUIDv7 ids sort by creation time):
 * newest first, `limit` rows, and the cursor for the next page when there is one.
 */
export async function page<T extends { id: string }>(
  query: Knex.QueryBuilder,
  limit: number,
  cursor?: string,
): Promise<{ rows: T[]; nextCursor: string | null }> {
  if (cursor) query.andWhere('id', '<', cursor);
  const rows: T[] = await query.orderBy('id', 'desc').limit(limit + 1);
  const rowsOfPage = rows.slice(0, limit);
  return { rows: rowsOfPage, nextCursor: rows.length > limit ? rowsOfPage[rowsOfPage.length - 1]!.id : null };
}
