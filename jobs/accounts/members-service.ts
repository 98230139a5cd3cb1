import { forgetPrincipals } from '../accounts/index.js';
import { actorOf, recordAudit } from '../audit/index.js';
import { hashPassword, sha256 } from '../../shared/crypto.js';
import type { Db } from '../../shared/db/knex.js';
import type { Deps } from '../../shared/deps.js';
import { type AppError, conflict, forbidden, notFound } from '../../shared/errors.js';
import { newId, randomSecret } from '../../shared/ids.js';
import type { Principal, Role } from '../../shared/schemas/auth.js';
import { actingRole, governRefusal, grantRefusal, INVITE_TTL_DAYS, leavesNoOwner } from './logic.js';
import { invitationMail } from './invitation-mail.js';
import {
  activateMember,
  deleteInvitedMember,
  endMemberSessions,
  getMember,
  insertInvitedMember,
  listMembers,
  lockMember,
  otherActiveOwners,
  updateRole,
  updateStatus,
  type MemberRow,
} from './members-repository.js';
import type { MemberActivate, MemberInvite, MemberListQuery } from './members-schemas.js';

export async function listAccountMembers(deps: Pick<Deps, 'db'>, principal: Principal, query: MemberListQuery) {
  return listMembers(deps.db, principal.accountId, query);
}

/** One member of the caller's account; another account's member is 404, as if it did not exist. */
export async function fetchMember(deps: Pick<Deps, 'db'>, principal: Principal, memberId: string): Promise<MemberRow> {
  const row = await getMember(deps.db, principal.accountId, memberId);
  if (!row) throw notFound(`Member ${memberId}`);
  return row;
}

const memberEntry = (principal: Principal, action: string, memberId: string, details: Record<string, unknown>) => ({
  ...actorOf(principal),
  action,
  resourceType: 'member',
  resourceId: memberId,
  details,
});

/**
 * Invites a person by email with a role (owner/admin only; only an owner
 * invites an owner or an admin). The one-time code goes out by mail and only
 * its SHA-256 is kept; the mail is sent after commit, so the invitation
 * exists whether or not it could be sent. 409 when the account has a member
 * with this email (any status): withdraw a pending invitation to send a new one.
 */
export async function inviteMember(deps: Deps, principal: Principal, input: MemberInvite) {
  const refusal = grantRefusal(actingRole(principal), input.role);
  if (refusal) {
    await recordAudit(deps.db, {
      ...actorOf(principal),
      action: 'member.invited',
      resourceType: 'member',
      outcome: 'denied',
      details: { email: input.email, role: input.role, reason: refusal },
    });
    throw forbidden(`Cannot invite a member as ${input.role}: ${refusal}`);
  }
  const code = `inv_${randomSecret(24)}`;
  const expiresAt = new Date(Date.now() + INVITE_TTL_DAYS * 86_400_000);
  const row = await deps.db.transaction(async (trx) => {
    const created = await insertInvitedMember(trx, {
      id: newId('mem'),
      account_id: principal.accountId,
      email: input.email.trim(),
      name: input.name,
      role: input.role,
      activation_hash: sha256(code),
      invited_by: principal.memberId ?? null,
      invite_expires_at: expiresAt,
    });
    if (!created) throw conflict('The account has a member with this email already');
    const details = { email: created.email, role: created.role };
    await recordAudit(trx, memberEntry(principal, 'member.invited', created.id, details));
    return created;
  });
  const to = { accountId: principal.accountId, email: row.email, name: row.name, role: row.role };
  const delivery = await invitationMail(deps, to, code, INVITE_TTL_DAYS);
  return { row, delivery, expiresAt };
}

/**
 * The invitee sets its password with the code: the member becomes active
 * and may sign in. 404 for an unknown, used or expired code.
 */
export async function acceptInvitation(deps: Pick<Deps, 'db'>, input: MemberActivate): Promise<MemberRow> {
  const passwordHash = await hashPassword(input.password);
  return deps.db.transaction(async (trx) => {
    const row = await activateMember(trx, sha256(input.invitationCode), passwordHash);
    if (!row) throw notFound('Invitation code (unknown, already used or expired)');
    await recordAudit(trx, {
      accountId: row.account_id,
      memberId: row.id,
      action: 'member.activated',
      resourceType: 'member',
      resourceId: row.id,
      details: { email: row.email, role: row.role },
    });
    return row;
  });
}

type Refused = { refused: AppError };
type Change = (trx: Db, row: MemberRow) => Promise<MemberRow | Refused>;

/**
 * One change to one member, in a transaction that locks it: 404 for a
 * member of another account; a refusal (403 for rank, 409 for the last
 * owner) is recorded as a `denied` entry that commits, then answered.
 */
async function governMember(deps: Deps, principal: Principal, memberId: string, change: Change): Promise<MemberRow> {
  const result = await deps.db.transaction(async (trx) => {
    const row = await lockMember(trx, principal.accountId, memberId);
    if (!row) throw notFound(`Member ${memberId}`);
    return change(trx, row);
  });
  if ('refused' in result) throw result.refused;
  await forgetPrincipals(deps, { accountId: principal.accountId });
  return result;
}

/** Records a refusal about `row` (it commits with the transaction) and hands the error back to be answered. */
const refuser =
  (trx: Db, principal: Principal, row: MemberRow) =>
  async (action: string, err: AppError, details: Record<string, unknown>): Promise<Refused> => {
    const entry = memberEntry(principal, action, row.id, { ...details, reason: err.message });
    await recordAudit(trx, { ...entry, outcome: 'denied' });
    return { refused: err };
  };

/** Gives a member another role; its tokens and sessions carry the new role's scopes from the next request on. */
export async function changeRole(deps: Deps, principal: Principal, memberId: string, role: Role): Promise<MemberRow> {
  return governMember(deps, principal, memberId, async (trx, row) => {
    if (row.role === role) return row;
    const details = { from: row.role, to: role };
    const refusal = governRefusal(actingRole(principal), row.role, role);
    const deny = refuser(trx, principal, row);
    if (refusal) return deny('member.roleChanged', forbidden(`Cannot change this member's role: ${refusal}`), details);
    if (leavesNoOwner(row, await otherActiveOwners(trx, principal.accountId, row.id), role)) {
      const lastOwner = conflict('The last active owner cannot be demoted; make another member owner first');
      return deny('member.roleChanged', lastOwner, details);
    }
    const changed = await updateRole(trx, row.id, role);
    await recordAudit(trx, memberEntry(principal, 'member.roleChanged', row.id, details));
    return changed;
  });
}

/**
 * Disables a member: its tokens and sessions stop at once (authentication
 * requires an active member; its sessions are also ended). A pending
 * invitation is withdrawn instead (DELETE), 409 here.
 */
export async function disableMember(deps: Deps, principal: Principal, memberId: string): Promise<MemberRow> {
  return governMember(deps, principal, memberId, async (trx, row) => {
    if (row.status === 'disabled') return row;
    if (row.status === 'invited') {
      return { refused: conflict('The member has not accepted its invitation; withdraw it instead (DELETE)') };
    }
    const details = { role: row.role };
    const refusal = governRefusal(actingRole(principal), row.role);
    const deny = refuser(trx, principal, row);
    if (refusal) return deny('member.disabled', forbidden(`Cannot disable this member: ${refusal}`), details);
    if (leavesNoOwner(row, await otherActiveOwners(trx, principal.accountId, row.id))) {
      return deny('member.disabled', conflict('The last active owner cannot be disabled'), details);
    }
    const changed = await updateStatus(trx, row.id, 'disabled');
    const sessions = await endMemberSessions(trx, row.id);
    await recordAudit(trx, memberEntry(principal, 'member.disabled', row.id, { ...details, sessionsEnded: sessions }));
    return changed;
  });
}

/** Lets a disabled member in again: its tokens that were not revoked work again; its ended sessions do not. */
export async function enableMember(deps: Deps, principal: Principal, memberId: string): Promise<MemberRow> {
  return governMember(deps, principal, memberId, async (trx, row) => {
    if (row.status === 'active') return row;
    if (row.status === 'invited') return { refused: conflict('The member has not accepted its invitation yet') };
    const refusal = governRefusal(actingRole(principal), row.role);
    const deny = refuser(trx, principal, row);
    if (refusal) return deny('member.enabled', forbidden(`Cannot enable this member: ${refusal}`), { role: row.role });
    const changed = await updateStatus(trx, row.id, 'active');
    await recordAudit(trx, memberEntry(principal, 'member.enabled', row.id, { role: row.role }));
    return changed;
  });
}

/** Withdraws a pending invitation (its code stops working); a member who accepted is disabled instead (409). */
export async function withdrawInvitation(deps: Deps, principal: Principal, memberId: string): Promise<MemberRow> {
  return governMember(deps, principal, memberId, async (trx, row) => {
    if (row.status !== 'invited') {
      return { refused: conflict('Only a pending invitation is withdrawn; disable a member who accepted') };
    }
    const refusal = governRefusal(actingRole(principal), row.role);
    const deny = refuser(trx, principal, row);
    const refused = forbidden(`Cannot withdraw this invitation: ${refusal}`);
    if (refusal) return deny('member.removed', refused, { role: row.role });
    const removed = (await deleteInvitedMember(trx, principal.accountId, row.id))!;
    await recordAudit(trx, memberEntry(principal, 'member.removed', row.id, { email: row.email, role: row.role }));
    return removed;
  });
}
