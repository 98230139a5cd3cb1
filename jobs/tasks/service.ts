import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import { recordEvent } from '../../shared/db/outbox.js';
import {
  getTask,
  insertTask,
  insertTaskAudit,
  listTaskAudit,
  listTasks,
  updateTask,
  type TaskRow,
} from './repository.js';
import { notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { wakeDispatcher } from '../events/index.js';
import { RUN_TO_TASK, TASKS, type TaskStatus } from './machine.js';
import type { TaskRecord } from './view.js';

const actorOf = (principal: Principal) => `token:${principal.tokenId}`;

async function withAudit(db: Db, task: TaskRow): Promise<TaskRecord> {
  return { task, audit: await listTaskAudit(db, [task.id]) };
}

/**
 * The one way a task changes status: checks the move against the table
 * (409 with the allowed moves otherwise), writes the audit row and, on
 * completion, the `task.completed` event, all in the caller's transaction.
 * Staying in the same status only updates `outData`/`state`, with no audit row.
 */
export async function transitionTask(
  trx: Db,
  accountId: string,
  taskId: string,
  to: string,
  opts: { actor: string; note?: string; outData?: Record<string, unknown>; state?: Record<string, unknown> },
): Promise<TaskRow & { deliveries: number }> {
  const task = await getTask(trx, accountId, taskId, true);
  if (!task) throw notFound(`Task ${taskId}`);
  return moveTask(trx, accountId, task, to, opts);
}

/** `transitionTask` for a task row the caller has already locked (FOR UPDATE) in this transaction. */
export async function moveTask(
  trx: Db,
  accountId: string,
  task: TaskRow,
  to: string,
  opts: { actor: string; note?: string; outData?: Record<string, unknown>; state?: Record<string, unknown> },
): Promise<TaskRow & { deliveries: number }> {
  const taskId = task.id;
  const moves = task.status !== to;
  if (moves) TASKS.assertMove(task.status, to, 'A task');
  const row = await updateTask(trx, taskId, {
    status: to,
    outData: opts.outData,
    state: opts.state ? { ...task.state, ...opts.state } : undefined,
  });
  let deliveries = 0;
  if (moves) {
    await insertTaskAudit(trx, {
      task_id: taskId,
      account_id: accountId,
      actor: opts.actor,
      from_status: task.status,
      to_status: to,
      note: opts.note ?? null,
    });
    if (to === 'completed') {
      ({ deliveries } = await recordEvent(trx, {
        accountId,
        type: 'task.completed',
        subject: taskId,
        payload: { taskId, domain: task.domain, outData: row.out_data ?? null },
      }));
    }
  }
  return { ...row, deliveries };
}

/**
 * The task side of a run reaching a status; moves that do not apply are
 * skipped, not errors. Returns how many webhook deliveries it queued.
 */
export async function transitionTaskForRun(
  trx: Db,
  accountId: string,
  taskId: string,
  runStatus: string,
  outData: Record<string, unknown>,
): Promise<number> {
  const to = RUN_TO_TASK[runStatus];
  const task = await getTask(trx, accountId, taskId, true);
  if (!to || !task || !(task.status === to || TASKS.canMove(task.status, to))) return 0;
  return (
    await moveTask(trx, accountId, task, to, {
      actor: `run:${outData.runId ?? ''}`,
      note: `run is ${runStatus}`,
      ...(to === 'completed' ? { outData } : {}),
    })
  ).deliveries;
}

/** A run submitted for the task started: an open (or waiting) task is now running. */
export async function startTaskForRun(trx: Db, accountId: string, taskId: string, runId: string): Promise<void> {
  const task = await getTask(trx, accountId, taskId, true);
  if (task && (task.status === 'open' || task.status.startsWith('awaiting')))
    await moveTask(trx, accountId, task, 'running', { actor: `run:${runId}`, note: 'run started' });
}

/** A new task, `open`, with its first audit row. */
export async function createTask(
  deps: Deps,
  principal: Principal,
  input: { domain: string; inData: Record<string, unknown>; userId?: string; channel?: string },
): Promise<TaskRecord> {
  const task = await deps.db.transaction((trx) => insertNewTask(trx, principal.accountId, actorOf(principal), input));
  return withAudit(deps.db, task);
}

/**
 * Writes a new `open` task and its first audit row in the caller's transaction (a proxy step makes one for its run).
 */
export async function insertNewTask(
  trx: Db,
  accountId: string,
  actor: string,
  input: { domain: string; inData: Record<string, unknown>; userId?: string; channel?: string },
): Promise<TaskRow> {
  const row = await insertTask(trx, {
    id: newId('task'),
    account_id: accountId,
    domain: input.domain,
    in_data: input.inData,
    user_id: input.userId ?? null,
    channel: input.channel ?? 'api',
  });
  await insertTaskAudit(trx, {
    task_id: row.id,
    account_id: accountId,
    actor,
    from_status: null,
    to_status: 'open' satisfies TaskStatus,
    note: 'created',
  });
  return row;
}

export async function findTasks(
  deps: Deps,
  principal: Principal,
  query: { status?: string; domain?: string; limit?: number; cursor?: string },
): Promise<{ tasks: TaskRecord[]; nextCursor: string | null }> {
  const { rows, nextCursor } = await listTasks(deps.db, principal.accountId, query, query.limit ?? 50, query.cursor);
  const audit = await listTaskAudit(
    deps.db,
    rows.map((t) => t.id),
  );
  return { tasks: rows.map((task) => ({ task, audit: audit.filter((a) => a.task_id === task.id) })), nextCursor };
}

export async function fetchTask(deps: Deps, principal: Principal, taskId: string): Promise<TaskRecord> {
  const task = await getTask(deps.db, principal.accountId, taskId);
  if (!task) throw notFound(`Task ${taskId}`);
  return withAudit(deps.db, task);
}

/** Moves a task (or only updates its data when `status` is absent) on behalf of a client. */
export async function updateTaskByClient(
  deps: Deps,
  principal: Principal,
  taskId: string,
  change: { status?: string; outData?: Record<string, unknown>; state?: Record<string, unknown>; note?: string },
): Promise<TaskRecord> {
  const row = await deps.db.transaction(async (trx) => {
    const task = await getTask(trx, principal.accountId, taskId, true);
    if (!task) throw notFound(`Task ${taskId}`);
    return transitionTask(trx, principal.accountId, task.id, change.status ?? task.status, {
      actor: actorOf(principal),
      note: change.note,
      outData: change.outData,
      state: change.state,
    });
  });
  if (row.deliveries > 0) await wakeDispatcher(deps);
  const { deliveries: _deliveries, ...task } = row;
  return withAudit(deps.db, task);
}
