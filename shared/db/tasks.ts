import type { Db } from './knex.js';
import { iso } from './knex.js';
import { conflict, notFound } from '../errors.js';
import { recordEvent } from './outbox.js';

/** Task statuses and the moves allowed between them; terminal states have none. */
export const TASK_TRANSITIONS: Record<string, string[]> = {
  open: ['running', 'completed', 'failed', 'canceled'],
  running: ['awaitingInput', 'awaitingProxy', 'awaitingApproval', 'completed', 'failed', 'canceled'],
  awaitingInput: ['running', 'completed', 'failed', 'canceled'],
  awaitingProxy: ['running', 'completed', 'failed', 'canceled'],
  awaitingApproval: ['running', 'completed', 'failed', 'canceled'],
  completed: [],
  failed: [],
  canceled: [],
};
export const TASK_STATUSES = Object.keys(TASK_TRANSITIONS);

const RUN_TO_TASK: Record<string, string> = {
  ready: 'completed', NEEDS_INPUT: 'awaitingInput', awaitingProxy: 'awaitingProxy', awaitingApproval: 'awaitingApproval', failed: 'failed', running: 'running',
};

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

export async function getTask(db: Db, accountId: string, taskId: string, forUpdate = false): Promise<TaskRow | null> {
  const q = db('tasks').where({ id: taskId, account_id: accountId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

/**
 * Moves a task to `to` with an audit row, or throws 409 listing the allowed
 * moves. Completion writes the `task.completed` outbox event in the same transaction.
 */
export async function transitionTask(trx: Db, accountId: string, taskId: string, to: string, opts: { actor: string; note?: string; outData?: Record<string, unknown>; state?: Record<string, unknown> }): Promise<TaskRow & { deliveries: number }> {
  const task = await getTask(trx, accountId, taskId, true);
  if (!task) throw notFound(`Task ${taskId}`);
  if (task.status !== to && !TASK_TRANSITIONS[task.status]!.includes(to)) {
    throw conflict(`A task cannot move from ${task.status} to ${to}`, { from: task.status, to, allowed: TASK_TRANSITIONS[task.status] });
  }
  const patch: Record<string, unknown> = { status: to, updated_at: trx.fn.now() };
  if (opts.outData) patch.out_data = JSON.stringify(opts.outData);
  if (opts.state) patch.state = JSON.stringify({ ...task.state, ...opts.state });
  const [row] = await trx('tasks').where({ id: taskId }).update(patch).returning('*');
  let deliveries = 0;
  if (task.status !== to) {
    await trx('task_audit').insert({ task_id: taskId, account_id: accountId, actor: opts.actor, from_status: task.status, to_status: to, note: opts.note ?? null });
    if (to === 'completed') {
      ({ deliveries } = await recordEvent(trx, { accountId, type: 'task.completed', subject: taskId, payload: { taskId, domain: task.domain, outData: row.out_data ?? null } }));
    }
  }
  return { ...row, deliveries };
}

/**
 * The task side of a run reaching a status; moves that do not apply are
 * skipped, not errors. Returns how many webhook deliveries it queued.
 */
export async function transitionTaskForRun(trx: Db, accountId: string, taskId: string, runStatus: string, outData: Record<string, unknown>): Promise<number> {
  const to = RUN_TO_TASK[runStatus];
  const task = await getTask(trx, accountId, taskId, true);
  if (!to || !task || !(task.status === to || TASK_TRANSITIONS[task.status]!.includes(to))) return 0;
  return (await transitionTask(trx, accountId, taskId, to, { actor: `run:${outData.runId ?? ''}`, note: `run is ${runStatus}`, ...(to === 'completed' ? { outData } : {}) })).deliveries;
}

export async function taskView(db: Db, task: TaskRow) {
  const audit = await db('task_audit').where({ task_id: task.id }).orderBy('id');
  return {
    taskId: task.id,
    domain: task.domain,
    status: task.status,
    allowedTransitions: TASK_TRANSITIONS[task.status],
    inData: task.in_data,
    outData: task.out_data,
    state: task.state,
    userId: task.user_id,
    channel: task.channel,
    createdAt: iso(task.created_at),
    updatedAt: iso(task.updated_at),
    audit: audit.map((a) => ({ actor: a.actor, from: a.from_status, to: a.to_status, note: a.note, at: iso(a.at) })),
  };
}
