import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

export interface IssuerJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid?: string;
}

export interface IssuerRow {
  id: string;
  account_id: string;
  entity_id: string;
  public_key: IssuerJwk;
  created_by: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

export async function insertIssuer(
  db: Db,
  row: Pick<IssuerRow, 'id' | 'account_id' | 'entity_id' | 'public_key' | 'created_by'>,
) {
  const [created] = await db('pay_issuers')
    .insert({ ...row, public_key: JSON.stringify(row.public_key) })
    .returning('*');
  return created as IssuerRow;
}

export async function getIssuer(db: Db, accountId: string, id: string, lock = false): Promise<IssuerRow | null> {
  const q = db('pay_issuers').where({ account_id: accountId, id });
  return (await (lock ? q.forUpdate() : q).first()) ?? null;
}

export async function listIssuers(db: Db, accountId: string, limit: number, cursor?: string) {
  return page<IssuerRow>(db('pay_issuers').where({ account_id: accountId }), limit, cursor);
}

/** The account's live keys of one issuer (an issuer rotating its key has two for a while). */
export async function activeIssuerKeys(db: Db, accountId: string, entityId: string): Promise<IssuerRow[]> {
  return db('pay_issuers').where({ account_id: accountId, entity_id: entityId }).whereNull('revoked_at').orderBy('id');
}

export async function revokeIssuer(db: Db, id: string): Promise<IssuerRow> {
  const [row] = await db('pay_issuers').where({ id }).update({ revoked_at: db.fn.now() }).returning('*');
  return row;
}
