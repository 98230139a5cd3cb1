import type { Db } from '../../shared/db/knex.js';
import { memberEmails } from '../accounts/index.js';
import type { Escalation } from '../engine-hooks.js';

/**
 * Who hears of a waitpoint near its expiry: an approval's approvers (owner,
 * admin, approver); a choice's submitter, the one person who must choose;
 * when the run has no submitting member (an internal caller) or that member
 * is no longer active, the account's owners and admins, so the question does
 * not expire unseen.
 */
export async function escalationRecipients(
  db: Db,
  wp: { accountId: string; approval: boolean; submittedBy: string | null },
): Promise<Escalation> {
  if (wp.approval)
    return {
      to: await memberEmails(db, wp.accountId, { roles: ['owner', 'admin', 'approver'] }),
      audience: 'approvers',
    };
  const submitter = wp.submittedBy ? await memberEmails(db, wp.accountId, { id: wp.submittedBy }) : [];
  if (submitter.length > 0) return { to: submitter, audience: 'submitter' };
  return { to: await memberEmails(db, wp.accountId, { roles: ['owner', 'admin'] }), audience: 'admins' };
}
