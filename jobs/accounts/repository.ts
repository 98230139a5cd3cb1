import type { Db } from '../../shared/db/knex.js';
import type { Role, Transport } from '../../shared/schemas/auth.js';

export interface AccountRow {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  plan: 'builder' | 'team';
  status: 'pending' | 'active';
  unverified_used: number;
  activation_hash: string | null;
}

export interface TokenRow {
  id: string;
  account_id: string;
  member_id: string;
  name: string;
  prefix: string;
  scopes: string[];
  transports: Transport[];
  status: 'active' | 'revoked';
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const UNIQUE_VIOLATION = '23505';

/** Inserts an account; returns false when the email is taken (case-insensitive). */
export async function insertAccount(
  db: Db,
  row: Omit<AccountRow, 'unverified_used' | 'status'> & { status?: AccountRow['status'] },
): Promise<boolean> {
  try {
    await db('accounts').insert(row);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) return false;
    throw err;
  }
}

export async function activateAccount(db: Db, activationHash: string): Promise<AccountRow | null> {
  const [row] = await db('accounts')
    .where({ activation_hash: activationHash })
    .update({ status: 'active', activation_hash: null, activated_at: db.fn.now() })
    .returning('*');
  return row ?? null;
}

export interface TokenInsert {
  id: string;
  account_id: string;
  /** The member the token belongs to; the account's owner when absent (sign-up, operator scripts). */
  member_id?: string;
  name: string;
  prefix: string;
  token_hash: string;
  scopes: string[];
  transports?: Transport[];
  rotated_from?: string;
}

export async function insertToken(db: Db, row: TokenInsert): Promise<TokenRow> {
  const member = row.member_id ?? ownerMemberOf(db, row.account_id);
  const [created] = await db('api_tokens')
    .insert({ ...row, member_id: member })
    .returning('*');
  return created;
}

/** The account's owner member, as a subquery for inserts that belong to "the account" itself. */
export function ownerMemberOf(db: Db, accountId: string) {
  return db('members').select('id').where({ account_id: accountId, role: 'owner' }).orderBy('created_at').limit(1);
}

export interface TokenPrincipalRow {
  token_id: string;
  account_id: string;
  member_id: string;
  role: Role;
  scopes: string[];
  transports: Transport[];
  plan: AccountRow['plan'];
  account_status: AccountRow['status'];
}

/** Resolves an active token of an active member by hash, with the member's role and the account's plan and state. */
export async function findActiveToken(db: Db, tokenHash: string): Promise<TokenPrincipalRow | null> {
  const row = await db('api_tokens as t')
    .join('accounts as a', 'a.id', 't.account_id')
    .join('members as m', 'm.id', 't.member_id')
    .where({ 't.token_hash': tokenHash, 't.status': 'active', 'm.status': 'active' })
    .first(
      't.id as token_id',
      't.account_id',
      't.member_id',
      'm.role',
      't.scopes',
      't.transports',
      'a.plan',
      'a.status as account_status',
    );
  return row ?? null;
}

/** The account's tokens, newest first; only those of one member when `memberId` is given. */
export async function listTokens(db: Db, accountId: string, memberId?: string): Promise<TokenRow[]> {
  const q = db('api_tokens').where({ account_id: accountId });
  if (memberId) q.andWhere('member_id', memberId);
  return q.orderBy('created_at', 'desc');
}

export async function getToken(db: Db, accountId: string, tokenId: string): Promise<TokenRow | null> {
  return (await db('api_tokens').where({ account_id: accountId, id: tokenId }).first()) ?? null;
}

/** Revokes an active token; returns null when it is not this account's or already revoked. */
export async function revokeToken(db: Db, accountId: string, tokenId: string): Promise<TokenRow | null> {
  const [row] = await db('api_tokens')
    .where({ account_id: accountId, id: tokenId, status: 'active' })
    .update({ status: 'revoked', revoked_at: db.fn.now() })
    .returning('*');
  return row ?? null;
}

/** Records that a token was used; informational, so callers do it at most now and then. */
export async function touchToken(db: Db, tokenId: string): Promise<void> {
  await db('api_tokens').where({ id: tokenId }).update({ last_used_at: db.fn.now() });
}

/**
 * Takes one workflow request from a not-yet-activated account's allowance.
 * The conditional UPDATE is atomic, so concurrent requests never admit more than `limit`. `taken`: one was counted.
 */
export async function takeUnverifiedAllowance(
  db: Db,
  accountId: string,
  limit: number,
): Promise<{ admitted: boolean; taken: boolean }> {
  // An account activated since its caller's principal was read (a cached principal may be seconds old) is admitted,
  // uncounted.
  const result = await db.raw(
    `WITH taken AS (UPDATE accounts SET unverified_used = unverified_used + 1 WHERE id = ? AND status = 'pending'
        AND unverified_used < ? RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM taken) OR EXISTS (SELECT 1 FROM accounts WHERE id = ?
         AND status = 'active') AS admitted, EXISTS (SELECT 1 FROM taken) AS taken`,
    [accountId, limit, accountId],
  );
  return result.rows[0];
}

/** Counts one workflow request in the month's usage; false once `limit` is reached. */
export async function takeMonthlyQuota(db: Db, accountId: string, period: string, limit: number): Promise<boolean> {
  const result = await db.raw(
    `INSERT INTO usage_counters (account_id, period, workflow_requests) VALUES (?, ?, 1)
     ON CONFLICT (account_id, period) DO UPDATE SET workflow_requests = usage_counters.workflow_requests + 1
     WHERE usage_counters.workflow_requests < ?
     RETURNING workflow_requests`,
    [accountId, period, limit],
  );
  return result.rows.length === 1 && limit > 0;
}

/** Gives back one request of the starter allowance (takeUnverifiedAllowance took it). */
export async function giveBackUnverifiedAllowance(db: Db, accountId: string): Promise<void> {
  await db('accounts').where({ id: accountId }).where('unverified_used', '>', 0).decrement('unverified_used', 1);
}

/** Gives back one request of the month's quota (takeMonthlyQuota counted it). */
export async function giveBackMonthlyQuota(db: Db, accountId: string, period: string): Promise<void> {
  await db('usage_counters')
    .where({ account_id: accountId, period })
    .where('workflow_requests', '>', 0)
    .decrement('workflow_requests', 1);
}

/** The account of a sandbox session (team plan, no password); true when this call created it. */
export async function insertSandboxAccount(db: Db, accountId: string): Promise<boolean> {
  const inserted = await db('accounts')
    .insert({
      id: accountId,
      email: `${accountId}@sandbox.awp.local`,
      name: 'sandbox',
      password_hash: '!',
      plan: 'team',
      status: 'active',
    })
    .onConflict('id')
    .ignore()
    .returning('id');
  return inserted.length === 1;
}

/** An account's plan and activation, for work started without a request token (signal rules, schedules). */
export async function getAccountStanding(
  db: Db,
  accountId: string,
): Promise<Pick<AccountRow, 'id' | 'plan' | 'status'> | null> {
  return (await db('accounts').select('id', 'plan', 'status').where({ id: accountId }).first()) ?? null;
}
