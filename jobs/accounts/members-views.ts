import { iso } from '../../shared/db/knex.js';
import type { MemberRow } from './members-repository.js';
import type { MemberView } from './members-schemas.js';

/** A member as the API shows it: never its password hash or invitation code hash. */
export function memberView(row: MemberRow): MemberView {
  return {
    memberId: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    invitedBy: row.invited_by,
    createdAt: iso(row.created_at)!,
    activatedAt: iso(row.activated_at),
    disabledAt: iso(row.disabled_at),
    inviteExpiresAt: row.status === 'invited' ? iso(row.invite_expires_at) : null,
  };
}
