import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

export interface GrantRow {
  id: string;
  account_id: string;
  created_by: string;
  environments: string[];
  allowed_actions: string[];
  require_approval: string[];
  allow_commands: boolean;
  dry_run: boolean;
  workdir: string | null;
  max_actions: number;
  budget: number;
  used: number;
  expires_at: Date;
  revoked_at: Date | null;
  revoked_by: string | null;
  created_at: Date;
}

export async function insertGrant(
  db: Db,
  row: Omit<GrantRow, 'used' | 'revoked_at' | 'revoked_by' | 'created_at'>,
): Promise<GrantRow> {
  const [created] = await db('autonomy_grants').insert(row).returning('*');
  return created;
}

export async function getGrant(db: Db, accountId: string, id: string, lock = false): Promise<GrantRow | null> {
  const q = db('autonomy_grants').where({ account_id: accountId, id });
  return (await (lock ? q.forUpdate() : q).first()) ?? null;
}

export async function listGrants(db: Db, accountId: string, limit: number, cursor?: string) {
  return page<GrantRow>(db('autonomy_grants').where({ account_id: accountId }), limit, cursor);
}

export async function revokeGrant(db: Db, id: string, memberId: string | null): Promise<GrantRow> {
  const [row] = await db('autonomy_grants')
    .where({ id })
    .update({ revoked_at: db.fn.now(), revoked_by: memberId })
    .returning('*');
  return row;
}

/**
 * Draws `actions` from the grant's budget for one run, once: a retried step
 * finds its run's draw. False when the grant is revoked, expired or has not
 * that much left (the CHECK on `used` backs the guard).
 */
export async function drawGrant(db: Db, grantId: string, runId: string, actions: number): Promise<boolean> {
  return db
    .transaction(async (trx) => {
      const [use] = await trx('autonomy_grant_uses')
        .insert({ grant_id: grantId, run_id: runId, actions })
        .onConflict(['grant_id', 'run_id'])
        .ignore()
        .returning('grant_id');
      if (!use) return true;
      const drawn = await trx('autonomy_grants')
        .where({ id: grantId })
        .whereNull('revoked_at')
        .where('expires_at', '>', trx.fn.now())
        .whereRaw('used + ? <= budget', [actions])
        .increment('used', actions)
        .returning('id');
      if (drawn.length === 0) throw new GrantSpent();
      return true;
    })
    .catch((err) => {
      if (err instanceof GrantSpent) return false;
      throw err;
    });
}

class GrantSpent extends Error {}
