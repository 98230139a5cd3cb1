import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import { forbidden, selfApproval } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { actorOf, recordAudit } from '../audit/index.js';
import { getPolicy } from './repository.js';
import type { GateKind } from '../approval-gates.js';
import type { Approval, ApprovalSubject } from '../engine-hooks.js';

/** May the run's submitter approve this kind, by the account's policy? */
export async function selfApprovalAllowed(db: Db, accountId: string, gate: GateKind): Promise<boolean> {
  return (await getPolicy(db, accountId))?.self_approval.includes(gate) ?? false;
}

/**
 * Whether `approver` approving for a run `submitter` submitted keeps duties apart (or the policy lets the submitter).
 */
export async function separated(db: Db, accountId: string, approver: string, submitter: string | null, gate: GateKind) {
  return approver !== submitter || !submitter || selfApprovalAllowed(db, accountId, gate);
}

export function selfApprovalError(memberId: string, gate: GateKind) {
  return selfApproval(
    `Member ${memberId} submitted this run and may not approve its own ${gate} gate; another approver must, ` +
      'or an owner or admin allows self-approval of this kind (POST /v1/policies/approvals)',
    { gate, memberId },
  );
}

/**
 * The one decision of every approval (a run's approval waitpoint over HTTP,
 * MCP or A2A, a delivery gate, an unsigned mandate): the caller must be a
 * member holding `approvals:write` (403), and not the member who submitted
 * the run unless the account's policy allows self-approval of that kind
 * (409 selfApproval). A refusal of the approval (`approved: false`) is open
 * to the submitter too: failing closed needs nobody's separation.
 *
 * `trx` is the transaction of the approval itself, so `approval.granted` /
 * `approval.denied` commit with it; a refusal is recorded on its own
 * connection, because the approval's transaction rolls back.
 */
export async function authorizeApproval(
  deps: Pick<Deps, 'db'>,
  trx: Db,
  principal: Principal,
  subject: ApprovalSubject,
  approved: boolean,
): Promise<Approval> {
  const details = { gate: subject.gate, step: subject.step ?? null, ...(subject.details ?? {}) };
  const entry = { ...actorOf(principal), resourceType: subject.resourceType, resourceId: subject.resourceId };
  const refuse = async (reason: string, err: Error) => {
    await recordAudit(deps.db, {
      ...entry,
      action: 'approval.refused',
      outcome: 'denied',
      details: { ...details, reason },
    });
    return err;
  };
  const holds = principal.scopes.includes('approvals:write') || principal.scopes.includes('admin');
  if (!principal.memberId) throw await refuse('noMember', forbidden('An approval is given by a member of the account'));
  if (!approved && !holds && !principal.scopes.includes('runs:write')) {
    throw await refuse('missingScope', forbidden('Refusing a gate needs approvals:write or runs:write'));
  }
  if (approved && !holds) {
    throw await refuse(
      'missingScope',
      forbidden(`Approving a ${subject.gate} gate needs the approvals:write scope (roles owner, admin, approver)`),
    );
  }
  if (approved && !(await separated(trx, principal.accountId, principal.memberId, subject.submittedBy, subject.gate))) {
    throw await refuse('selfApproval', selfApprovalError(principal.memberId, subject.gate));
  }
  await recordAudit(trx, { ...entry, action: approved ? 'approval.granted' : 'approval.denied', details });
  return { approvedBy: principal.memberId, gate: subject.gate, approved };
}
