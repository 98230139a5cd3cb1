import type { Db } from './knex.js';

export interface RunGrantRow {
  submitted_by: string | null;
  grant_scopes: string[] | null;
}

/**
 * Who submitted a run and with which scopes (null scopes: a run from before grants were recorded). The submitter's
 * current standing is the accounts module's to read (the `memberStanding` engine hook).
 */
export async function runGrantRow(db: Db, accountId: string, runId: string): Promise<RunGrantRow | null> {
  return (await db('runs').where({ id: runId, account_id: accountId }).first('submitted_by', 'grant_scopes')) ?? null;
}
