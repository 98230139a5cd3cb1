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
