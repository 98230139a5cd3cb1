import type { Db } from '../../shared/db/knex.js';
import type { Role } from '../../shared/schemas/auth.js';
import type { MemberStatus } from './members-schemas.js';

export interface MemberRow {
  id: string;
  account_id: string;
  email: string;
  name: string;
  role: Role;
  status: MemberStatus;
  password_hash: string | null;
  activation_hash: string | null;
  invited_by: string | null;
  created_at: Date;
  activated_at: Date | null;
  disabled_at: Date | null;
  invite_expires_at: Date | null;
}

/** The account's members, oldest first (an account has a handful: the list is not paged). */
export async function listMembers(
  db: Db,
  accountId: string,
  f: { role?: Role; status?: MemberStatus },
): Promise<MemberRow[]> {
  const q = db('members').where({ account_id: accountId });
  if (f.role) q.andWhere('role', f.role);
  if (f.status) q.andWhere('status', f.status);
  return q.orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

export async function getMember(db: Db, accountId: string, memberId: string): Promise<MemberRow | null> {
  return (await db('members').where({ account_id: accountId, id: memberId }).first()) ?? null;
}

/** The member row, locked until the transaction ends: two changes to one member happen one after the other. */
export async function lockMember(trx: Db, accountId: string, memberId: string): Promise<MemberRow | null> {
  return (await trx('members').where({ account_id: accountId, id: memberId }).forUpdate().first()) ?? null;
}

/**
 * Locks the account's active owners and says how many there are besides
 * `memberId`. Two owners demoting each other at once queue on these locks,
 * and the second re-reads the first's change, so one owner always remains.
 */
export async function otherActiveOwners(trx: Db, accountId: string, memberId: string): Promise<number> {
  const rows: Array<{ id: string }> = await trx('members')
    .select('id')
    .where({ account_id: accountId, role: 'owner', status: 'active' })
    .orderBy('id')
    .forUpdate();
  return rows.filter((r) => r.id !== memberId).length;
}

export interface InviteInsert {
  id: string;
  account_id: string;
  email: string;
  name: string;
  role: Role;
  activation_hash: string;
  invited_by: string | null;
  invite_expires_at: Date;
}

/** A new invited member; null when the account has a member with this email already (any case). */
export async function insertInvitedMember(db: Db, row: InviteInsert): Promise<MemberRow | null> {
  const [created] = await db('members')
    .insert({ ...row, status: 'invited' })
    .onConflict()
    .ignore()
    .returning('*');
  return created ?? null;
}

/** Activates the invited member of an unexpired code, with its password; null for an unknown, used or stale code. */
export async function activateMember(db: Db, activationHash: string, passwordHash: string): Promise<MemberRow | null> {
  const [row] = await db('members')
    .where({ activation_hash: activationHash, status: 'invited' })
    .andWhere('invite_expires_at', '>', db.fn.now())
    .update({ status: 'active', password_hash: passwordHash, activation_hash: null, activated_at: db.fn.now() })
    .returning('*');
  return row ?? null;
}

export async function updateRole(trx: Db, memberId: string, role: Role): Promise<MemberRow> {
  const [row] = await trx('members').where({ id: memberId }).update({ role }).returning('*');
  return row;
}

export async function updateStatus(trx: Db, memberId: string, status: 'active' | 'disabled'): Promise<MemberRow> {
  const [row] = await trx('members')
    .where({ id: memberId })
    .update({ status, disabled_at: status === 'disabled' ? trx.fn.now() : null })
    .returning('*');
  return row;
}

/** Ends the member's live dashboard sessions (a later enable does not bring them back). */
export async function endMemberSessions(trx: Db, memberId: string): Promise<number> {
  return trx('dashboard_sessions')
    .where({ member_id: memberId })
    .whereNull('signed_out_at')
    .update({ signed_out_at: trx.fn.now() });
}

/** Withdraws an invitation that was never accepted; null when the member is not (or no longer) invited. */
export async function deleteInvitedMember(trx: Db, accountId: string, memberId: string): Promise<MemberRow | null> {
  const [row] = await trx('members')
    .where({ account_id: accountId, id: memberId, status: 'invited' })
    .del()
    .returning('*');
  return row ?? null;
}

/** A member's current role and status, as a run or an automation acting on its grant reads it (never cached). */
export interface MemberStanding {
  id: string;
  account_id: string;
  role: Role;
  status: string;
}

export async function memberStanding(db: Db, accountId: string, memberId: string): Promise<MemberStanding | null> {
  const row = await db('members')
    .where({ id: memberId, account_id: accountId })
    .first('id', 'account_id', 'role', 'status');
  return row ?? null;
}

/** The member a token belongs to, with its role, for deciding who may manage the token. */
export async function tokenHolder(db: Db, memberId: string): Promise<{ memberId: string; role: Role } | null> {
  const row = await db('members').select('id', 'role').where({ id: memberId }).first();
  return row ? { memberId: row.id, role: row.role } : null;
}

export interface SignInCandidate {
  member_id: string;
  account_id: string;
  account_name: string;
  password_hash: string;
}

/** Active memberships of an email (any case) that have a password, optionally in one account; at most 20. */
export async function signInCandidates(db: Db, email: string, accountId?: string): Promise<SignInCandidate[]> {
  const q = db('members as m')
    .join('accounts as a', 'a.id', 'm.account_id')
    .whereRaw('lower(m.email) = lower(?)', [email.trim()])
    .where('m.status', 'active')
    .whereNotNull('m.password_hash');
  if (accountId) q.andWhere('m.account_id', accountId);
  return q
    .select('m.id as member_id', 'm.account_id', 'a.name as account_name', 'm.password_hash')
    .orderBy('m.created_at')
    .limit(20);
}

/**
 * The emails of the account's active members, oldest first: those holding one of `roles`, or the one member `id`
 * (who hears of an escalation: jobs/approvals/escalation.ts).
 */
export async function memberEmails(
  db: Db,
  accountId: string,
  who: { roles: readonly string[] } | { id: string },
): Promise<string[]> {
  const members = await activeMembers(db, accountId, 'id' in who ? { ids: [who.id] } : who);
  return members.map((m) => m.email);
}

/** The account's active members holding one of `roles`, or among `ids`, oldest first (who the inbox notifies). */
export async function activeMembers(
  db: Db,
  accountId: string,
  who: { roles: readonly string[] } | { ids: readonly string[] },
): Promise<Array<{ id: string; email: string; role: Role }>> {
  const q = db('members').where({ account_id: accountId, status: 'active' });
  if ('ids' in who) q.whereIn('id', [...who.ids]);
  else q.whereIn('role', [...who.roles]);
  return q.orderBy('created_at').select('id', 'email', 'role');
}
