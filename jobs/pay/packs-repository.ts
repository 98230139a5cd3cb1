import type { Db } from '../../shared/db/knex.js';

export interface ProofPackRow {
  id: string;
  account_id: string;
  run_id: string;
  /** The sealed pack: the exact RFC 8785 canonical JSON that was hashed and signed. */
  document: string;
  root_hash: string;
  kid: string;
  created_at: Date;
}

/** Stores a sealed pack once: a pack with that id already stored stays as it is (packs never change). */
export async function insertProofPack(db: Db, row: Omit<ProofPackRow, 'created_at'>): Promise<void> {
  await db('proof_packs').insert(row).onConflict('id').ignore();
}

export async function getProofPack(db: Db, accountId: string, id: string): Promise<ProofPackRow | null> {
  return (await db('proof_packs').where({ id, account_id: accountId }).first()) ?? null;
}
