import type { Db } from '../../shared/db/knex.js';
import type { Escalation } from '../engine-hooks.js';
import { approverEmails, chooserEmails } from './repository.js';

/**
 * Who hears of a waitpoint near its expiry: an approval's approvers (owner,
 * admin, approver); a choice's submitter, the one person who must choose,
 * else the owners and admins.
 */
export async function escalationRecipients(
  db: Db,
  wp: { accountId: string; approval: boolean; submittedBy: string | null },
): Promise<Escalation> {
  if (wp.approval) return { to: await approverEmails(db, wp.accountId), audience: 'approvers' };
  return chooserEmails(db, wp.accountId, wp.submittedBy);
}
