import type { Role } from '../../shared/schemas/auth.js';

/**
 * Who may govern whom, without I/O. Owners govern everyone; admins govern
 * the roles below them (approver, developer, viewer) and may not make
 * anyone an owner or admin: so an admin can never raise itself or a friend
 * to its own rank, nor lower or lock out the people above it.
 */
const GOVERNING: readonly Role[] = ['owner', 'admin'];

/** The role the caller acts with: an operator token (`admin` scope) acts as an owner. */
export function actingRole(caller: { role?: Role; scopes: readonly string[] }): Role | null {
  if (caller.scopes.includes('admin')) return 'owner';
  return caller.role ?? null;
}

/**
 * Why `actor` may not govern a member holding `targetRole` (and give it
 * `newRole` when the role changes), or null when it may.
 */
export function governRefusal(actor: Role | null, targetRole: Role, newRole?: Role): string | null {
  if (actor === 'admin' && GOVERNING.includes(targetRole)) {
    return `only an owner may change or disable an ${targetRole}`;
  }
  return grantRefusal(actor, newRole ?? targetRole);
}

/** Why `actor` may not give a member `role` (by invitation or by a role change), or null when it may. */
export function grantRefusal(actor: Role | null, role: Role): string | null {
  if (actor === 'owner') return null;
  if (actor !== 'admin') return 'only an owner or an admin manages members';
  if (GOVERNING.includes(role)) return `only an owner may make a member an ${role}`;
  return null;
}

/**
 * Managing another member's tokens (list, rotate, revoke) follows the same
 * ranks as governing the member; a member always manages its own.
 */
export function tokenManagementRefusal(
  caller: { memberId?: string; role?: Role; scopes: readonly string[] },
  owner: { memberId: string; role: Role },
): string | null {
  if (caller.memberId === owner.memberId) return null;
  if (!caller.scopes.includes('members:manage') && !caller.scopes.includes('admin')) {
    return 'it belongs to another member; managing it needs members:manage (an owner or an admin)';
  }
  const refusal = governRefusal(actingRole(caller), owner.role);
  return refusal ? `it belongs to another member and ${refusal}` : null;
}

/** The last active owner keeps the account governable: it can neither be demoted nor disabled. */
export function leavesNoOwner(
  target: { role: Role; status: string },
  otherActiveOwners: number,
  newRole?: Role,
): boolean {
  const removesOwner = newRole === undefined || newRole !== 'owner';
  return target.role === 'owner' && target.status === 'active' && removesOwner && otherActiveOwners === 0;
}

/** Days an invitation's code stays valid. */
export const INVITE_TTL_DAYS = 7;
