import { iso } from '../../shared/db/knex.js';
import type { TaskAuditRow, TaskRow } from './repository.js';
import { TASKS } from './machine.js';

export interface TaskRecord {
  task: TaskRow;
  audit: TaskAuditRow[];
}

/** A task as the API shows it, with the moves open to it now and its audit trail. */
export function taskView({ task, audit }: TaskRecord) {
  return {
    taskId: task.id,
    domain: task.domain,
    status: task.status,
    allowedTransitions: TASKS.allowed(task.status),
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
