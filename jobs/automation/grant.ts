import type { Deps } from '../../shared/deps.js';
import { memberStanding } from '../accounts/index.js';
import { AppError } from '../../shared/errors.js';
import { missingScopes } from '../../shared/auth/scopes.js';
import { DEFAULT_SCOPES, effectiveScopes, type Principal } from '../../shared/schemas/auth.js';

/** What a schedule or a signal rule stores of its creator: the member, and the scopes of the token it used. */
export interface CreatorGrant {
  created_by: string | null;
  grant_scopes: string[] | null;
}

/** What starting a target directly needs (POST /v1/orchestrator and the workflow templates alike). */
const START_SCOPES = ['runs:write'];
/** What a schedule or rule from before grants were recorded starts runs with: what every automated run had. */
const LEGACY_SCOPES = ['runs:write'];

/**
 * The grant a schedule or rule records when it is written (created, or its
 * target changed): 403 unless its writer could start the target directly,
 * so schedule and signal scopes alone never start a run.
 */
export function creatorGrant(principal: Principal, writing: string): CreatorGrant {
  const missing = missingScopes(principal, START_SCOPES);
  if (missing.length > 0) {
    const message = `${writing} starts runs, which needs scope ${missing.join(', ')}; this token lacks it`;
    throw new AppError('forbidden', message, { missingScopes: missing });
  }
  // Never `admin` (the operator's power over every account): an operator's automation gets the account's scopes.
  const scopes = principal.scopes.includes('admin') ? DEFAULT_SCOPES : principal.scopes;
  return { created_by: principal.memberId ?? null, grant_scopes: [...new Set(scopes)] };
}

export type FiringGrant = { memberId?: string; role?: Principal['role']; scopes: string[] } | { refused: string };

/**
 * The scopes a firing's run gets: the recorded grant within its creator's
 * CURRENT role, so a demoted member's automation loses what the role lost
 * and a disabled or removed member's starts nothing (refused, with why).
 */
export async function firingGrant(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  grant: CreatorGrant,
): Promise<FiringGrant> {
  if (grant.grant_scopes === null) return { scopes: [...LEGACY_SCOPES] };
  if (!grant.created_by) return { refused: 'the member who created it was removed; recreate it' };
  const member = await memberStanding(deps.db, accountId, grant.created_by);
  if (!member) return { refused: `its creator ${grant.created_by} is no longer a member; recreate it` };
  if (member.status !== 'active') return { refused: `its creator ${member.id} is ${member.status}` };
  const scopes = effectiveScopes(grant.grant_scopes, member.role);
  const missing = START_SCOPES.filter((s) => !scopes.includes(s) && !scopes.includes('admin'));
  if (missing.length > 0) {
    return { refused: `its creator ${member.id} (role ${member.role}) no longer holds ${missing.join(', ')}` };
  }
  return { memberId: member.id, role: member.role, scopes };
}
