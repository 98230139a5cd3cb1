import type { Db } from '../../shared/db/knex.js';
import { ownerMemberOf, type AccountRow } from './repository.js';
import type { Role } from '../../shared/schemas/auth.js';

export interface SessionPrincipalRow {
  id: string;
  account_id: string;
  member_id: string;
  role: Role;
  csrf_token: string;
  expires_at: Date;
  plan: AccountRow['plan'];
  account_status: AccountRow['status'];
}

export async function getAccount(db: Db, accountId: string): Promise<(AccountRow & { created_at: Date }) | null> {
  return (await db('accounts').where({ id: accountId }).first()) ?? null;
}

export async function insertSession(
  db: Db,
  row: {
    id: string;
    account_id: string;
    member_id?: string;
    secret_hash: string;
    csrf_token: string;
    expires_at: Date;
  },
): Promise<void> {
  await db('dashboard_sessions').insert({ ...row, member_id: row.member_id ?? ownerMemberOf(db, row.account_id) });
}

/** A session that is neither signed out nor expired, with its account's plan and activation state. */
export async function findLiveSession(db: Db, secretHash: string): Promise<SessionPrincipalRow | null> {
  const row = await db('dashboard_sessions as s')
    .join('accounts as a', 'a.id', 's.account_id')
    .join('members as m', 'm.id', 's.member_id')
    .where('s.secret_hash', secretHash)
    .whereNull('s.signed_out_at')
    .where('s.expires_at', '>', db.fn.now())
    .where('m.status', 'active')
    .first(
      's.id',
      's.account_id',
      's.member_id',
      'm.role',
      's.csrf_token',
      's.expires_at',
      'a.plan',
      'a.status as account_status',
    );
  return row ?? null;
}

/** Ends a live session of the account; false when there was none. */
export async function endSession(db: Db, accountId: string, sessionId: string): Promise<boolean> {
  const updated = await db('dashboard_sessions')
    .where({ id: sessionId, account_id: accountId })
    .whereNull('signed_out_at')
    .update({ signed_out_at: db.fn.now() });
  return updated === 1;
}

/** A new activation code for a still-pending account; false when it is already active. */
export async function replaceActivationHash(db: Db, accountId: string, activationHash: string): Promise<boolean> {
  const updated = await db('accounts')
    .where({ id: accountId, status: 'pending' })
    .update({ activation_hash: activationHash });
  return updated === 1;
}

export async function monthlyUsage(db: Db, accountId: string, period: string): Promise<number> {
  const row = await db('usage_counters').where({ account_id: accountId, period }).first('workflow_requests');
  return row?.workflow_requests ?? 0;
}
