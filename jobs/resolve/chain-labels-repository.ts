import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

/** Every SQL statement of chain tracing's address labels. */

export interface ChainLabelRow {
  id: string;
  account_id: string;
  family: string;
  address: string;
  kind: string;
  name: string;
  note: string | null;
  created_at: Date;
}

/** Inserts the label, or returns null when the account already labels that address. */
export async function insertChainLabel(db: Db, row: Omit<ChainLabelRow, 'created_at'>): Promise<ChainLabelRow | null> {
  const [inserted] = await db('chain_labels')
    .insert(row)
    .onConflict(['account_id', 'family', 'address'])
    .ignore()
    .returning('*');
  return inserted ?? null;
}

export function listChainLabels(db: Db, accountId: string, limit: number, cursor?: string) {
  return page<ChainLabelRow>(db('chain_labels').where({ account_id: accountId }), limit, cursor);
}

export async function deleteChainLabel(db: Db, accountId: string, labelId: string): Promise<number> {
  return db('chain_labels').where({ account_id: accountId, id: labelId }).delete();
}

/** The account's labels of any of these addresses in one chain family. */
export async function labelsOf(
  db: Db,
  accountId: string,
  family: string,
  addresses: string[],
): Promise<ChainLabelRow[]> {
  if (addresses.length === 0) return [];
  return db('chain_labels').where({ account_id: accountId, family }).whereIn('address', addresses);
}
