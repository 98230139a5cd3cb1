import type { Deps } from '../../shared/deps.js';
import { conflict, invalidPayload, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { actorOf, recordAudit } from '../audit/index.js';
import { authorizeApproval } from '../approvals/index.js';
import { DEFAULT_MAX_ACTIONS } from './autonomy.js';
import { getGrant, insertGrant, listGrants, revokeGrant, type GrantRow } from './grants-repository.js';
import type { AutonomyGrantCreate } from './grants-schemas.js';

export function grantStatus(row: GrantRow, now = Date.now()): 'active' | 'revoked' | 'expired' | 'spent' {
  if (row.revoked_at) return 'revoked';
  if (row.expires_at.getTime() <= now) return 'expired';
  return row.used >= row.budget ? 'spent' : 'active';
}

export function grantView(row: GrantRow) {
  return {
    grantId: row.id,
    status: grantStatus(row),
    createdBy: row.created_by,
    environments: row.environments,
    allowedActions: row.allowed_actions,
    requireApproval: row.require_approval,
    allowCommands: row.allow_commands,
    dryRun: row.dry_run,
    workdir: row.workdir,
    maxActions: row.max_actions,
    budget: row.budget,
    used: row.used,
    expiresAt: row.expires_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * A grant is an approval given ahead of the runs it covers, so it is made
 * by a member holding approvals:write (the one approval decision, with no
 * run to compare against yet: the run's submitter is compared when a run uses it).
 */
export async function createGrant(deps: Deps, principal: Principal, body: AutonomyGrantCreate): Promise<GrantRow> {
  if (new Date(body.expiresAt).getTime() <= Date.now())
    throw invalidPayload('expiresAt must be in the future', { path: '/expiresAt' });
  const id = newId('agr');
  return deps.db.transaction(async (trx) => {
    const approval = await authorizeApproval(
      deps,
      trx,
      principal,
      {
        resourceType: 'autonomyGrant',
        resourceId: id,
        submittedBy: null,
        gate: 'autonomy',
        details: { environments: body.environments, budget: body.budget },
      },
      true,
    );
    return insertGrant(trx, {
      id,
      account_id: principal.accountId,
      created_by: approval.approvedBy,
      environments: body.environments,
      allowed_actions: body.allowedActions,
      require_approval: body.requireApproval ?? [],
      allow_commands: body.allowCommands ?? false,
      dry_run: body.dryRun ?? true,
      workdir: body.workdir ?? null,
      max_actions: body.maxActions ?? DEFAULT_MAX_ACTIONS,
      budget: body.budget,
      expires_at: new Date(body.expiresAt),
    });
  });
}

export async function fetchGrant(deps: Pick<Deps, 'db'>, principal: Principal, grantId: string): Promise<GrantRow> {
  const row = await getGrant(deps.db, principal.accountId, grantId);
  if (!row) throw notFound(`Autonomy grant ${grantId}`);
  return row;
}

export async function findGrants(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  query: { limit?: number; cursor?: string },
) {
  return listGrants(deps.db, principal.accountId, query.limit ?? 50, query.cursor);
}

/** Revokes a grant under its row lock: a run drawing on it either drew before or finds it revoked. */
export async function revokeAutonomyGrant(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  grantId: string,
  reason?: string,
): Promise<GrantRow> {
  return deps.db.transaction(async (trx) => {
    const row = await getGrant(trx, principal.accountId, grantId, true);
    if (!row) throw notFound(`Autonomy grant ${grantId}`);
    if (row.revoked_at) throw conflict(`Autonomy grant ${grantId} is already revoked`);
    await recordAudit(trx, {
      ...actorOf(principal),
      action: 'autonomyGrant.revoked',
      resourceType: 'autonomyGrant',
      resourceId: grantId,
      details: { reason: reason ?? null },
    });
    return revokeGrant(trx, grantId, principal.memberId ?? null);
  });
}
