import type { Db } from '../../shared/db/knex.js';
import type { GateKind } from './vocabulary.js';

export interface ApprovalPolicyRow {
  account_id: string;
  self_approval: GateKind[];
  updated_by: string | null;
  updated_at: Date;
}

/** The account's policy, or null when it never set one (no self-approval at all). */
export async function getPolicy(db: Db, accountId: string): Promise<ApprovalPolicyRow | null> {
  return (await db('approval_policies').where({ account_id: accountId }).first()) ?? null;
}

export async function upsertPolicy(db: Db, accountId: string, selfApproval: GateKind[], memberId: string | null) {
  const [row] = await db('approval_policies')
    .insert({ account_id: accountId, self_approval: selfApproval, updated_by: memberId, updated_at: db.fn.now() })
    .onConflict('account_id')
    .merge(['self_approval', 'updated_by', 'updated_at'])
    .returning('*');
  return row as ApprovalPolicyRow;
}

/** Active, email-bearing approvers of the account (owner, admin, approver): who hears of an escalation. */
export async function approverEmails(db: Db, accountId: string): Promise<string[]> {
  const rows = await db('members')
    .where({ account_id: accountId, status: 'active' })
    .whereIn('role', ['owner', 'admin', 'approver'])
    .orderBy('created_at')
    .select('email');
  return rows.map((r: { email: string }) => r.email);
}

/**
 * Who hears of a choice (NEEDS_INPUT) near its expiry: the member who submitted
 * the run, the one person who must choose; when the run has no submitting
 * member (an internal caller) or that member is no longer active, the
 * account's owners and admins, so the question does not expire unseen.
 */
export async function chooserEmails(
  db: Db,
  accountId: string,
  submittedBy: string | null,
): Promise<{ to: string[]; audience: 'submitter' | 'admins' }> {
  if (submittedBy) {
    const submitter = await db('members')
      .where({ account_id: accountId, id: submittedBy, status: 'active' })
      .first('email');
    if (submitter?.email) return { to: [submitter.email], audience: 'submitter' };
  }
  const rows = await db('members')
    .where({ account_id: accountId, status: 'active' })
    .whereIn('role', ['owner', 'admin'])
    .orderBy('created_at')
    .select('email');
  return { to: rows.map((r: { email: string }) => r.email), audience: 'admins' };
}
