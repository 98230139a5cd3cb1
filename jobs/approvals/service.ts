import type { Deps } from '../../shared/deps.js';
import { forbidden } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { actorOf, recordAudit } from '../audit/index.js';
import { getPolicy, upsertPolicy, type ApprovalPolicyRow } from './repository.js';
import type { ApprovalPolicyUpdate } from './schemas.js';
import { GATE_KINDS, GOVERNING_ROLES } from './vocabulary.js';

/** 403 unless the caller is an owner or admin member: who answers for the account sets its rules. */
export function assertGoverning(principal: Principal, what: string): void {
  if (!principal.role || !(GOVERNING_ROLES as readonly string[]).includes(principal.role)) {
    throw forbidden(`${what} is for an owner or admin member`);
  }
}

export function policyView(row: ApprovalPolicyRow | null) {
  return {
    ok: true as const,
    selfApproval: row?.self_approval ?? [],
    gateKinds: [...GATE_KINDS],
    updatedBy: row?.updated_by ?? null,
    updatedAt: row?.updated_at.toISOString() ?? null,
  };
}

export async function readPolicy(deps: Pick<Deps, 'db'>, principal: Principal) {
  return policyView(await getPolicy(deps.db, principal.accountId));
}

/** Replaces the account's self-approval list, recorded in the audit log in the same transaction. */
export async function updatePolicy(deps: Pick<Deps, 'db'>, principal: Principal, body: ApprovalPolicyUpdate) {
  assertGoverning(principal, 'Setting the approval policy');
  const row = await deps.db.transaction(async (trx) => {
    const before = await getPolicy(trx, principal.accountId);
    const updated = await upsertPolicy(trx, principal.accountId, body.selfApproval, principal.memberId ?? null);
    await recordAudit(trx, {
      ...actorOf(principal),
      action: 'policy.approvals.updated',
      resourceType: 'approvalPolicy',
      resourceId: principal.accountId,
      details: { before: before?.self_approval ?? [], after: body.selfApproval },
    });
    return updated;
  });
  return policyView(row);
}
