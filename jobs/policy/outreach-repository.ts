import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

/** Every SQL statement of outreach compliance: suppressions and recorded decisions. */

export interface SuppressionRow {
  id: string;
  account_id: string;
  recipient: string;
  reason: string | null;
  created_at: Date;
}

export interface DecisionRow {
  id: string;
  account_id: string;
  channel: string;
  recipient: string;
  purpose: string | null;
  lawful_basis: string | null;
  decision: string;
  reasons: Array<{ rule: string; message: string }>;
  not_before: Date | null;
  source: string;
  created_at: Date;
}

/** Adds a suppression; adding the same recipient again returns the one already there. */
export async function upsertSuppression(db: Db, row: Omit<SuppressionRow, 'created_at'>): Promise<SuppressionRow> {
  await db('outreach_suppressions').insert(row).onConflict(['account_id', 'recipient']).ignore();
  return db('outreach_suppressions').where({ account_id: row.account_id, recipient: row.recipient }).first();
}

export async function isSuppressed(db: Db, accountId: string, recipient: string): Promise<boolean> {
  return Boolean(await db('outreach_suppressions').where({ account_id: accountId, recipient }).first('id'));
}

export async function listSuppressions(db: Db, accountId: string, limit: number, cursor?: string) {
  return page<SuppressionRow>(db('outreach_suppressions').where({ account_id: accountId }), limit, cursor);
}

/** Deletes one; false when the account has none by that id. */
export async function deleteSuppression(db: Db, accountId: string, id: string): Promise<boolean> {
  return (await db('outreach_suppressions').where({ account_id: accountId, id }).delete()) > 0;
}

export async function insertDecision(db: Db, row: Omit<DecisionRow, 'created_at'>): Promise<DecisionRow> {
  const [out] = await db('outreach_decisions')
    .insert({ ...row, reasons: JSON.stringify(row.reasons) })
    .returning('*');
  return out;
}

export async function listDecisions(
  db: Db,
  accountId: string,
  filter: { decision?: string },
  limit: number,
  cursor?: string,
) {
  const q = db('outreach_decisions').where({ account_id: accountId });
  if (filter.decision) q.andWhere({ decision: filter.decision });
  return page<DecisionRow>(q, limit, cursor);
}
