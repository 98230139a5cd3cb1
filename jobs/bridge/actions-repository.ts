import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';
import { RUN_SETTLED_STATUSES, UNDER_WAY_STATUSES } from './machines.js';

/** Every SQL statement of bridge actions. */

export interface ActionMove {
  from: string | null;
  to: string;
  at: string;
  actor: string;
  note: string | null;
}

export interface ActionRow {
  id: string;
  account_id: string;
  connector_pk: string | null;
  connector_id: string;
  capability: string;
  resource: string | null;
  input: Record<string, unknown>;
  thread_id: string | null;
  session_id: string | null;
  case_id: string | null;
  mission_id: string | null;
  /** The run whose bridge step made it, and when that run had its answer (jobs/bridge/run-resume.ts). */
  run_id: string | null;
  run_read_at: Date | null;
  /** `hosted` (the server calls the endpoint) or `client` (a client-hosted adapter reports back). */
  hosting: string;
  status: string;
  idempotency_key: string;
  attempts: number;
  request_summary: Record<string, unknown> | null;
  response: Record<string, unknown> | null;
  proof: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  provider_ref: string | null;
  history: ActionMove[];
  next_attempt_at: Date | null;
  client_deadline: Date | null;
  finished_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewAction = Pick<
  ActionRow,
  | 'id'
  | 'account_id'
  | 'connector_pk'
  | 'connector_id'
  | 'capability'
  | 'resource'
  | 'input'
  | 'thread_id'
  | 'session_id'
  | 'case_id'
  | 'mission_id'
  | 'run_id'
  | 'hosting'
  | 'status'
  | 'idempotency_key'
  | 'history'
>;

/** What a move writes beside the status; absent fields stay as they are. */
export interface ActionChange {
  status: string;
  move: ActionMove;
  attempts?: number;
  requestSummary?: Record<string, unknown>;
  response?: Record<string, unknown> | null;
  proof?: Record<string, unknown> | null;
  error?: Record<string, unknown> | null;
  providerRef?: string | null;
  nextAttemptAt?: Date | null;
  /** When the action waits for its client or its provider (`awaitingClient`, `awaitingProvider`) at most. */
  clientDeadline?: Date | null;
  finished?: boolean;
  /** The run waiting on the action has its answer (set once; never cleared). */
  runRead?: boolean;
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

export async function insertAction(db: Db, a: NewAction): Promise<ActionRow> {
  const [row] = await db('bridge_actions')
    .insert({ ...a, input: JSON.stringify(a.input), history: JSON.stringify(a.history) })
    .returning('*');
  return row;
}

export async function getAction(
  db: Db,
  accountId: string,
  actionId: string,
  forUpdate = false,
): Promise<ActionRow | null> {
  const q = db('bridge_actions').where({ account_id: accountId, id: actionId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

/** A read by id alone, for the service's own jobs (they carry no account). */
export async function getActionById(db: Db, actionId: string): Promise<ActionRow | null> {
  return (await db('bridge_actions').where({ id: actionId }).first()) ?? null;
}

/** The worker's read: by id alone (the job carries no account), locked. */
export async function lockActionById(db: Db, actionId: string): Promise<ActionRow | null> {
  return (await db('bridge_actions').where({ id: actionId }).forUpdate().first()) ?? null;
}

export interface ActionFilter {
  status?: string;
  connectorId?: string;
  capability?: string;
  threadId?: string;
  missionId?: string;
  caseId?: string;
}

export async function listActions(
  db: Db,
  accountId: string,
  f: ActionFilter,
  limit: number,
  cursor?: string,
): Promise<{ rows: ActionRow[]; nextCursor: string | null }> {
  const q = db('bridge_actions').where({ account_id: accountId });
  if (f.status) q.andWhere({ status: f.status });
  if (f.connectorId) q.andWhere({ connector_id: f.connectorId });
  if (f.capability) q.andWhere({ capability: f.capability });
  if (f.threadId) q.andWhere({ thread_id: f.threadId });
  if (f.missionId) q.andWhere({ mission_id: f.missionId });
  if (f.caseId) q.andWhere({ case_id: f.caseId });
  return page<ActionRow>(q, limit, cursor);
}

/** A mission's actions, oldest first (the mission shows what was sent for it). */
export async function actionsOfMission(db: Db, missionId: string): Promise<ActionRow[]> {
  return db('bridge_actions').where({ mission_id: missionId }).orderBy('id');
}

/** The account's action a provider reference names (the id its provider answered with), newest first. */
export async function actionByProviderRef(
  db: Db,
  accountId: string,
  connectorId: string,
  providerRef: string,
): Promise<ActionRow | null> {
  return (
    (await db('bridge_actions')
      .where({ account_id: accountId, connector_id: connectorId, provider_ref: providerRef })
      .orderBy('id', 'desc')
      .forUpdate()
      .first()) ?? null
  );
}

export async function moveAction(db: Db, id: string, c: ActionChange): Promise<ActionRow> {
  const patch: Record<string, unknown> = {
    status: c.status,
    history: db.raw('history || ?::jsonb', [JSON.stringify([c.move])]),
    updated_at: db.fn.now(),
  };
  if (c.attempts !== undefined) patch.attempts = c.attempts;
  if (c.requestSummary !== undefined) patch.request_summary = json(c.requestSummary);
  if (c.response !== undefined) patch.response = json(c.response);
  if (c.proof !== undefined) patch.proof = json(c.proof);
  if (c.error !== undefined) patch.error = json(c.error);
  if (c.providerRef !== undefined) patch.provider_ref = c.providerRef;
  if (c.nextAttemptAt !== undefined) patch.next_attempt_at = c.nextAttemptAt;
  if (c.clientDeadline !== undefined) patch.client_deadline = c.clientDeadline;
  if (c.finished !== undefined) patch.finished_at = c.finished ? db.fn.now() : null;
  if (c.runRead) patch.run_read_at = db.fn.now();
  const [row] = await db('bridge_actions').where({ id }).update(patch).returning('*');
  return row;
}

/**
 * The actions of a channel thread (when, id, status, capability), as a subquery another module's timeline composes
 * (jobs/channels/repository.ts): the SQL on bridge_actions stays here.
 */
export function actionsOfThread(db: Db, threadId: string) {
  return db('bridge_actions').where({ thread_id: threadId }).select('created_at', 'id', 'status', 'capability');
}

/**
 * Actions under way whose job is overdue, in id order after `afterId`: queued (since `overdueSeconds`), a retry or a
 * client's or provider's deadline due `overdueSeconds` ago, or running `runningMs` (the call's own limit) plus that
 * long. Their jobs may be lost; the sweep checks (jobs/bridge/action-jobs.ts).
 */
export async function actionsWithOverdueJobs(
  db: Db,
  at: { overdueSeconds: number; runningMs: number },
  afterId: string,
  limit: number,
): Promise<ActionRow[]> {
  const running = at.overdueSeconds + at.runningMs / 1000;
  return db('bridge_actions')
    .whereIn('status', UNDER_WAY_STATUSES)
    .andWhere('id', '>', afterId)
    .andWhereRaw(
      `((status = 'queued' AND updated_at < now() - make_interval(secs => ?))
        OR (status = 'retrying' AND next_attempt_at < now() - make_interval(secs => ?))
        OR (status IN ('awaitingClient', 'awaitingProvider') AND client_deadline < now() - make_interval(secs => ?))
        OR (status = 'running' AND updated_at < now() - make_interval(secs => ?)))`,
      [at.overdueSeconds, at.overdueSeconds, at.overdueSeconds, running],
    )
    .orderBy('id')
    .limit(limit);
}

/** Marks that the run of the action has had its answer (or waits for it no more); set once. */
export async function markRunRead(db: Db, actionId: string): Promise<void> {
  await db('bridge_actions').where({ id: actionId }).whereNull('run_read_at').update({ run_read_at: db.fn.now() });
}

/**
 * Marks that the run waiting on the action has its answer, once: the action for the one caller that did it (the step
 * that read it settled), null when it is not settled for its run or was read already (a resume had it).
 */
export async function claimRunRead(db: Db, actionId: string): Promise<ActionRow | null> {
  const [row] = await db('bridge_actions')
    .where({ id: actionId })
    .whereNull('run_read_at')
    .whereIn('status', RUN_SETTLED_STATUSES)
    .update({ run_read_at: db.fn.now() })
    .returning('*');
  return row ?? null;
}

/**
 * Actions a run made that settled for it more than `overdueSeconds` ago while the run has not had them (its resume
 * was lost), in id order after `afterId`: the sweep resumes their runs (jobs/bridge/run-resume.ts).
 */
export async function actionsWithUnreadRuns(
  db: Db,
  overdueSeconds: number,
  afterId: string,
  limit: number,
): Promise<ActionRow[]> {
  return db('bridge_actions')
    .whereNotNull('run_id')
    .whereNull('run_read_at')
    .whereIn('status', RUN_SETTLED_STATUSES)
    .andWhere('id', '>', afterId)
    .andWhereRaw('updated_at < now() - make_interval(secs => ?)', [overdueSeconds])
    .orderBy('id')
    .limit(limit);
}

/** Puts a threadless action on a thread (a mission's, when its first callback lands); one already on a thread stays. */
export async function attachThread(db: Db, accountId: string, actionId: string, threadId: string): Promise<void> {
  await db('bridge_actions').where({ id: actionId, account_id: accountId }).whereNull('thread_id').update({
    thread_id: threadId,
  });
}
