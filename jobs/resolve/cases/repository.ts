import type { Db } from '../../../shared/db/knex.js';
import { page } from '../../../shared/db/page.js';

/** Every SQL statement of the case itself: upsert, reads, lists, updates, and the runs linked to it. */

export interface CaseRow {
  id: string;
  account_id: string;
  external_key: string | null;
  title: string;
  description: string | null;
  status: string;
  priority: string;
  task_id: string | null;
  run_id: string | null;
  metadata: Record<string, unknown>;
  assignee: string | null;
  watchers: string[];
  created_at: Date;
  updated_at: Date;
}

export type NewCase = Pick<
  CaseRow,
  | 'id'
  | 'account_id'
  | 'external_key'
  | 'title'
  | 'description'
  | 'status'
  | 'priority'
  | 'task_id'
  | 'run_id'
  | 'metadata'
  | 'assignee'
  | 'watchers'
>;

/**
 * Writes a case; with an external key that the account already uses,
 * nothing is written and null comes back (the caller then reads and updates
 * that case). One statement, so two racing upserts of one key make one case.
 */
export async function insertCase(db: Db, c: NewCase): Promise<CaseRow | null> {
  const [row] = await db('cases')
    .insert({ ...c, metadata: JSON.stringify(c.metadata) })
    .onConflict(['account_id', 'external_key'])
    .ignore()
    .returning('*');
  return row ?? null;
}

export async function getCase(db: Db, accountId: string, caseId: string, forUpdate = false): Promise<CaseRow | null> {
  const q = db('cases').where({ account_id: accountId, id: caseId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

export async function getCaseByKey(
  db: Db,
  accountId: string,
  externalKey: string,
  forUpdate = false,
): Promise<CaseRow | null> {
  const q = db('cases').where({ account_id: accountId, external_key: externalKey }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

export type CasePatch = Partial<
  Pick<
    CaseRow,
    'title' | 'description' | 'status' | 'priority' | 'task_id' | 'run_id' | 'metadata' | 'assignee' | 'watchers'
  >
>;

export async function updateCase(db: Db, caseId: string, patch: CasePatch): Promise<CaseRow> {
  const [row] = await db('cases')
    .where({ id: caseId })
    .update({
      ...patch,
      ...(patch.metadata ? { metadata: JSON.stringify(patch.metadata) } : {}),
      updated_at: db.fn.now(),
    })
    .returning('*');
  return row;
}

export interface CaseFilter {
  status?: string;
  priority?: string;
  taskId?: string;
  runId?: string;
  stakeholderEmail?: string;
  text?: string;
}

/** `%`, `_` and `\` in a search text match themselves, not any characters. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listCases(
  db: Db,
  accountId: string,
  filter: CaseFilter,
  limit: number,
  cursor?: string,
): Promise<{ rows: CaseRow[]; nextCursor: string | null }> {
  const q = db('cases').where({ account_id: accountId });
  if (filter.status) q.andWhere({ status: filter.status });
  if (filter.priority) q.andWhere({ priority: filter.priority });
  if (filter.taskId) q.andWhere({ task_id: filter.taskId });
  if (filter.runId) {
    q.whereExists((s) => {
      s.select(db.raw('1'))
        .from('case_runs')
        .whereRaw('case_runs.case_id = cases.id')
        .andWhere('case_runs.run_id', filter.runId!);
    });
  }
  if (filter.stakeholderEmail) {
    q.whereExists((s) => {
      s.select(db.raw('1'))
        .from('case_stakeholders')
        .whereRaw('case_stakeholders.case_id = cases.id')
        .andWhere('case_stakeholders.email', filter.stakeholderEmail!.toLowerCase());
    });
  }
  if (filter.text) {
    const like = likePattern(filter.text);
    q.andWhere((b) => {
      b.whereILike('title', like).orWhereILike('description', like).orWhereILike('external_key', like);
    });
  }
  return page<CaseRow>(q, limit, cursor);
}

/** Links a run to a case; true when the link is new (a retried step links once). */
export async function linkRun(db: Db, link: { caseId: string; runId: string; accountId: string }): Promise<boolean> {
  const rows = await db('case_runs')
    .insert({ case_id: link.caseId, run_id: link.runId, account_id: link.accountId })
    .onConflict(['case_id', 'run_id'])
    .ignore()
    .returning('run_id');
  return rows.length > 0;
}

/** Whether the account has a record of this kind with this id (refs of actions and timeline entries). */
export async function recordExists(
  db: Db,
  table: 'runs' | 'tasks' | 'proxy_missions' | 'proof_cards',
  accountId: string,
  id: string,
): Promise<boolean> {
  return Boolean(await db(table).where({ account_id: accountId, id }).first('id'));
}
