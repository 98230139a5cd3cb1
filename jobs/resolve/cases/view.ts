import type { ActionRow, DeadlineRow, StakeholderRow } from './parts-repository.js';
import type { TimelineRow } from './timeline-repository.js';
import type { CaseRow } from './repository.js';
import { iso } from '../../../shared/db/knex.js';
import { ACTIONS, CASES, DEADLINES } from './machines.js';

/** Cases and their parts as the API shows them, each with the moves open to it now. */

export function caseView(row: CaseRow) {
  return {
    caseId: row.id,
    externalKey: row.external_key,
    title: row.title,
    description: row.description,
    status: row.status,
    allowedTransitions: CASES.allowed(row.status),
    priority: row.priority,
    taskId: row.task_id,
    runId: row.run_id,
    metadata: row.metadata,
    assignee: row.assignee,
    watchers: row.watchers,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

export function stakeholderView(row: StakeholderRow) {
  return {
    stakeholderId: row.id,
    name: row.name,
    role: row.role,
    contact: { email: row.email, phone: row.phone },
    organisation: row.organisation,
    createdAt: iso(row.created_at)!,
  };
}

export function deadlineView(row: DeadlineRow) {
  return {
    deadlineId: row.id,
    title: row.title,
    dueAt: iso(row.due_at)!,
    owner: row.owner,
    status: row.status,
    allowedTransitions: DEADLINES.allowed(row.status),
    settledAt: iso(row.settled_at),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

export function actionView(row: ActionRow) {
  return {
    actionId: row.id,
    caseId: row.case_id,
    title: row.title,
    description: row.description,
    status: row.status,
    allowedTransitions: ACTIONS.allowed(row.status),
    owner: row.owner,
    dueAt: iso(row.due_at),
    refs: row.refs,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

export function entryView(row: TimelineRow) {
  return {
    entryId: row.id,
    at: iso(row.at)!,
    kind: row.kind,
    actor: row.actor,
    text: row.text,
    refs: row.refs,
    data: row.data,
  };
}

export interface CaseRecord {
  row: CaseRow;
  stakeholders: StakeholderRow[];
  deadlines: DeadlineRow[];
  actions: ActionRow[];
}

/** A case with its stakeholders, every deadline and its open action items. */
export function caseDetail(record: CaseRecord) {
  return {
    ...caseView(record.row),
    stakeholders: record.stakeholders.map(stakeholderView),
    deadlines: record.deadlines.map(deadlineView),
    actions: record.actions.map(actionView),
  };
}
