import type { Knex } from 'knex';
import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

// TODO(issue 7): jobs/orchestrator/submit.ts and finalize.ts still import these two from here. Point them at
// jobs/tasks/service.js, then delete this forward and its exception in test/unit/import-directions.test.ts.

export interface TaskRow {
  id: string;
  account_id: string;
  domain: string;
  status: string;
  in_data: Record<string, unknown>;
  out_data: Record<string, unknown> | null;
  state: Record<string, unknown>;
  user_id: string | null;
  channel: string;
  created_at: Date;
  updated_at: Date;
}

export interface TaskAuditRow {
  id: number;
  task_id: string;
  actor: string;
  from_status: string | null;
  to_status: string;
  note: string | null;
  at: Date;
}

export async function getTask(db: Db, accountId: string, taskId: string, forUpdate = false): Promise<TaskRow | null> {
  const q = db('tasks').where({ id: taskId, account_id: accountId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

export async function insertTask(
  db: Db,
  row: {
    id: string;
    account_id: string;
    domain: string;
    in_data: Record<string, unknown>;
    user_id: string | null;
    channel: string;
  },
): Promise<TaskRow> {
  const [created] = await db('tasks')
    .insert({ ...row, in_data: JSON.stringify(row.in_data) })
    .returning('*');
  return created;
}

/** Writes a task's status and, when given, its output and whole state object. */
export async function updateTask(
  db: Db,
  taskId: string,
  patch: { status: string; outData?: Record<string, unknown>; state?: Record<string, unknown> },
): Promise<TaskRow> {
  const [row] = await db('tasks')
    .where({ id: taskId })
    .update({
      status: patch.status,
      updated_at: db.fn.now(),
      ...(patch.outData ? { out_data: JSON.stringify(patch.outData) } : {}),
      ...(patch.state ? { state: JSON.stringify(patch.state) } : {}),
    })
    .returning('*');
  return row;
}

export async function insertTaskAudit(
  db: Db,
  row: {
    task_id: string;
    account_id: string;
    actor: string;
    from_status: string | null;
    to_status: string;
    note: string | null;
  },
): Promise<void> {
  await db('task_audit').insert(row);
}

/** Audit rows of the given tasks, oldest first, in one query. */
export async function listTaskAudit(db: Db, taskIds: string[]): Promise<TaskAuditRow[]> {
  if (taskIds.length === 0) return [];
  return db('task_audit').whereIn('task_id', taskIds).orderBy('id');
}

export async function listTasks(
  db: Knex,
  accountId: string,
  filter: { status?: string; domain?: string },
  limit: number,
  cursor?: string,
): Promise<{ rows: TaskRow[]; nextCursor: string | null }> {
  const q = db('tasks').where({ account_id: accountId });
  if (filter.status) q.andWhere({ status: filter.status });
  if (filter.domain) q.andWhere({ domain: filter.domain });
  return page<TaskRow>(q, limit, cursor);
}
