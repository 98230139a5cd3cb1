import type { Db } from './knex.js';
import type { Role } from '../schemas/auth.js';

export interface MemberStanding {
  id: string;
  account_id: string;
  role: Role;
  status: string;
}

/** A member's current role and status, read when a run or an automation acts on its grant (never cached). */
export async function memberStanding(db: Db, accountId: string, memberId: string): Promise<MemberStanding | null> {
  const row = await db('members')
    .where({ id: memberId, account_id: accountId })
    .first('id', 'account_id', 'role', 'status');
  return row ?? null;
}

export interface RunGrantRow {
  submitted_by: string | null;
  grant_scopes: string[] | null;
}

/** Who submitted a run and with which scopes (null scopes: a run from before grants were recorded). */
export async function runGrantRow(db: Db, accountId: string, runId: string): Promise<RunGrantRow | null> {
  return (await db('runs').where({ id: runId, account_id: accountId }).first('submitted_by', 'grant_scopes')) ?? null;
}
