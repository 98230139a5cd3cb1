import type { Knex } from 'knex';
import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

export interface SessionRow {
  id: string;
  account_id: string;
  connector_pk: string;
  connector_id: string;
  actions: string[];
  /** null: not narrowed beyond the connector's scopes. */
  resources: string[] | null;
  /** As stored: `active` or `revoked`; `expired` is read from the clock (see `expired`). */
  status: string;
  expires_at: Date;
  revoked_at: Date | null;
  revoked_reason: string | null;
  created_at: Date;
  /** `expires_at` has passed, by Postgres' clock. */
  expired: boolean;
}

export type NewSession = Pick<
  SessionRow,
  'id' | 'account_id' | 'connector_pk' | 'connector_id' | 'actions' | 'resources' | 'expires_at'
>;

// Every read says whether the session has expired by the database's clock, the same clock the status filter uses.
const withExpiry = (db: Db) => ['*', db.raw('expires_at <= now() AS expired')];

export async function insertSession(db: Db, row: NewSession): Promise<SessionRow> {
  const [created] = await db('connection_sessions')
    .insert(row)
    .returning(withExpiry(db) as never);
  return created;
}

export async function getSession(db: Db, accountId: string, id: string, forUpdate = false): Promise<SessionRow | null> {
  const q = db('connection_sessions').select(withExpiry(db)).where({ id, account_id: accountId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

/** A page of the account's sessions, by connector and by effective status (`expired` compared with now()). */
export async function listSessions(
  db: Knex,
  accountId: string,
  filter: { connectorId?: string; status?: string },
  limit: number,
  cursor?: string,
): Promise<{ rows: SessionRow[]; nextCursor: string | null }> {
  const q = db('connection_sessions').select(withExpiry(db)).where({ account_id: accountId });
  if (filter.connectorId) q.andWhere({ connector_id: filter.connectorId });
  if (filter.status === 'revoked') q.andWhere({ status: 'revoked' });
  if (filter.status === 'active') q.andWhere({ status: 'active' }).andWhereRaw('expires_at > now()');
  if (filter.status === 'expired') q.andWhere({ status: 'active' }).andWhereRaw('expires_at <= now()');
  return page<SessionRow>(q, limit, cursor);
}

export async function revokeSession(db: Db, id: string, reason: string | null): Promise<SessionRow> {
  const [row] = await db('connection_sessions')
    .where({ id })
    .update({ status: 'revoked', revoked_at: db.fn.now(), revoked_reason: reason })
    .returning(withExpiry(db) as never);
  return row;
}
