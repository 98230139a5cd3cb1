import type { Knex } from 'knex';

/** Every SQL statement of the data key table (vault_data_keys). */

export interface DataKeyRow {
  id: string;
  owner: string;
  wrapped: string;
  master_key_id: string;
  created_at: Date;
  rewrapped_at: Date | null;
}

export async function dataKeyById(db: Knex, id: string): Promise<DataKeyRow | null> {
  return (await db('vault_data_keys').where({ id }).first()) ?? null;
}

export async function dataKeyOfOwner(db: Knex, owner: string): Promise<DataKeyRow | null> {
  return (await db('vault_data_keys').where({ owner }).first()) ?? null;
}

/** Inserts the owner's data key unless it has one already (two processes racing: one wins); the owner's key after. */
export async function insertDataKey(
  db: Knex,
  row: Pick<DataKeyRow, 'id' | 'owner' | 'wrapped' | 'master_key_id'>,
): Promise<DataKeyRow> {
  await db('vault_data_keys').insert(row).onConflict('owner').ignore();
  return (await dataKeyOfOwner(db, row.owner))!;
}

/** True when some data key is wrapped by another master key than `masterKeyId` (a process left on a retired key). */
export async function wrappedByAnotherMaster(db: Knex, masterKeyId: string): Promise<boolean> {
  return Boolean(await db('vault_data_keys').whereNot({ master_key_id: masterKeyId }).first('id'));
}

/** Every data key, locked, for a master key rotation (in its transaction). */
export async function lockAllDataKeys(trx: Knex.Transaction): Promise<DataKeyRow[]> {
  return trx('vault_data_keys').select('*').orderBy('id').forUpdate();
}

export async function rewrapDataKey(
  trx: Knex.Transaction,
  id: string,
  wrapped: string,
  masterKeyId: string,
): Promise<void> {
  await trx('vault_data_keys')
    .where({ id })
    .update({ wrapped, master_key_id: masterKeyId, rewrapped_at: trx.fn.now() });
}
