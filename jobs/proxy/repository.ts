import type { Db, Knex } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';
import { runHasFinished } from '../../shared/db/runs.js';

/** The SQL statements of the proxy domain on missions (the provider book is in providers-repository.ts). */

export interface MissionMove {
  from: string | null;
  to: string;
  at: string;
  actor: string;
  note: string | null;
}

export interface MissionRow {
  id: string;
  account_id: string;
  task_id: string;
  run_id: string | null;
  step_id: string | null;
  kind: string;
  reason: string;
  task: string;
  context: Record<string, unknown>;
  voice_call: Record<string, unknown> | null;
  channel_msg: Record<string, unknown> | null;
  proof_req: string[];
  resume: Record<string, unknown> | null;
  status: string;
  assignee: string | null;
  outcome: Record<string, unknown> | null;
  proof: Record<string, unknown> | null;
  provider_id: string | null;
  provider_ref: string | null;
  callback_ref: string;
  request_id: string | null;
  history: MissionMove[];
  /** Replies its dispatch brought back, oldest first, each with what was read in it (null: none yet). */
  replies: Array<Record<string, unknown>> | null;
  expires_at: Date;
  resolved_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewMission = Pick<
  MissionRow,
  | 'id'
  | 'account_id'
  | 'task_id'
  | 'run_id'
  | 'step_id'
  | 'kind'
  | 'reason'
  | 'task'
  | 'context'
  | 'voice_call'
  | 'channel_msg'
  | 'proof_req'
  | 'resume'
  | 'status'
  | 'provider_id'
  | 'provider_ref'
  | 'callback_ref'
  | 'request_id'
  | 'history'
  | 'expires_at'
>;

/** A jsonb parameter: null stays SQL null. */
export const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

export async function insertMission(db: Db, m: NewMission): Promise<MissionRow> {
  const [row] = await db('proxy_missions')
    .insert({
      ...m,
      context: JSON.stringify(m.context),
      voice_call: json(m.voice_call),
      channel_msg: json(m.channel_msg),
      resume: json(m.resume),
      history: JSON.stringify(m.history),
    })
    .returning('*');
  return row;
}

export async function getMission(
  db: Db,
  accountId: string,
  proxyId: string,
  forUpdate = false,
): Promise<MissionRow | null> {
  const q = db('proxy_missions').where({ account_id: accountId, id: proxyId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

/** The mission a run step created, if it did (its retry finds it). */
export async function missionOfStep(db: Db, stepId: string): Promise<MissionRow | null> {
  return (await db('proxy_missions').where({ step_id: stepId }).first()) ?? null;
}

export interface MissionFilter {
  status?: string;
  kind?: string;
  taskId?: string;
}

export async function listMissions(
  db: Db,
  accountId: string,
  filter: MissionFilter,
  limit: number,
  cursor?: string,
): Promise<{ rows: MissionRow[]; nextCursor: string | null }> {
  const q = db('proxy_missions').where({ account_id: accountId });
  if (filter.status) q.andWhere({ status: filter.status });
  if (filter.kind) q.andWhere({ kind: filter.kind });
  if (filter.taskId) q.andWhere({ task_id: filter.taskId });
  return page<MissionRow>(q, limit, cursor);
}

export interface MissionReference {
  proxyId?: string;
  runId?: string;
  requestId?: string;
  providerRef?: string;
  callbackRef?: string;
}

/** Live missions (in `statuses`) matching every reference given; at most `limit`, enough to tell one from several. */
export async function missionsByReference(
  db: Db,
  accountId: string,
  ref: MissionReference,
  statuses: readonly string[],
  limit = 5,
): Promise<MissionRow[]> {
  const q = db('proxy_missions').where({ account_id: accountId }).whereIn('status', statuses);
  if (ref.proxyId) q.andWhere({ id: ref.proxyId });
  if (ref.runId) q.andWhere({ run_id: ref.runId });
  if (ref.requestId) q.andWhere({ request_id: ref.requestId });
  if (ref.providerRef)
    q.andWhere((b) => {
      b.where({ provider_id: ref.providerRef }).orWhere({ provider_ref: ref.providerRef });
    });
  if (ref.callbackRef) q.andWhere({ callback_ref: ref.callbackRef });
  return q.orderBy('id', 'desc').limit(limit);
}

/**
 * The account's live missions that contacted `address` (the phone number called or texted, the address written to),
 * newest first: where a reply that names no message it answers belongs.
 */
export async function liveMissionsContacting(
  db: Db,
  accountId: string,
  address: string,
  statuses: readonly string[],
  limit = 5,
): Promise<MissionRow[]> {
  return db('proxy_missions')
    .where({ account_id: accountId })
    .whereIn('status', statuses)
    .andWhere((b) => {
      b.whereRaw("voice_call->>'phone' = ?", [address]).orWhereRaw("channel_msg->>'to' = ?", [address]);
    })
    .orderBy('id', 'desc')
    .limit(limit);
}

/** Adds a reply to a mission (under the caller's row lock). */
export async function appendReply(db: Db, id: string, reply: Record<string, unknown>): Promise<MissionRow> {
  const [row] = await db('proxy_missions')
    .where({ id })
    .update({
      replies: db.raw("coalesce(replies, '[]'::jsonb) || ?::jsonb", [JSON.stringify([reply])]),
      updated_at: db.fn.now(),
    })
    .returning('*');
  return row as MissionRow;
}

/** Another live mission of the task than `proxyId`: the task then waits on, and is moved by, that one. */
export async function otherLiveMission(
  db: Db,
  taskId: string,
  proxyId: string,
  statuses: readonly string[],
): Promise<boolean> {
  return Boolean(
    await db('proxy_missions')
      .where({ task_id: taskId })
      .whereNot({ id: proxyId })
      .whereIn('status', statuses)
      .first('id'),
  );
}

/** Moves a mission; its history gains the move in the same statement, and an outcome, proof or assignee when given. */
export async function moveMission(
  db: Db,
  proxyId: string,
  change: {
    status: string;
    move: MissionMove;
    resolved?: boolean;
    outcome?: Record<string, unknown>;
    proof?: Record<string, unknown> | null;
    assignee?: string;
    providerId?: string;
  },
): Promise<MissionRow> {
  const [row] = await db('proxy_missions')
    .where({ id: proxyId })
    .update({
      status: change.status,
      history: db.raw('history || ?::jsonb', [JSON.stringify([change.move])]),
      updated_at: db.fn.now(),
      ...(change.resolved ? { resolved_at: db.fn.now() } : {}),
      ...(change.outcome !== undefined ? { outcome: JSON.stringify(change.outcome) } : {}),
      ...(change.proof !== undefined ? { proof: json(change.proof) } : {}),
      ...(change.assignee !== undefined ? { assignee: change.assignee } : {}),
      ...(change.providerId !== undefined ? { provider_id: change.providerId } : {}),
    })
    .returning('*');
  return row;
}

/**
 * Live missions past their expiry, and live missions whose run has ended:
 * the clock closes both. The statuses are bound one by one (not as an
 * array), so the planner matches them to the partial indexes on live missions.
 */
export async function missionsToClose(
  db: Db,
  liveStatuses: readonly string[],
  limit: number,
): Promise<Array<{ id: string; account_id: string; why: 'expired' | 'runEnded' }>> {
  const live = liveStatuses.map(() => '?').join(', ');
  const result = await db.raw(
    `(SELECT id, account_id, 'expired' AS why FROM proxy_missions WHERE status IN (${live}) AND expires_at < now()
        ORDER BY expires_at LIMIT ?)
     UNION ALL
     (SELECT m.id, m.account_id, 'runEnded' AS why FROM proxy_missions m
      WHERE m.status IN (${live}) AND m.run_id IS NOT NULL AND ? AND m.expires_at >= now()
          LIMIT ?)`,
    [...liveStatuses, limit, ...liveStatuses, runHasFinished(db, 'm.run_id'), limit],
  );
  return result.rows;
}

/**
 * The account's missions of the runs `runIds` selects or of the task `taskId` selects (id, created_at, kind, reason,
 * status, task_id), as a subquery another module's timeline composes (jobs/resolve/cases/timeline-repository.ts).
 */
export function missionsLinkedTo(db: Db, accountId: string, runIds: Knex.QueryBuilder, taskId: Knex.QueryBuilder) {
  return db('proxy_missions')
    .where({ account_id: accountId })
    .where((q) => {
      // A callback that returns the builder reads as a promise to the linter; knex only needs the calls.
      void q.whereIn('run_id', runIds).orWhere('task_id', taskId);
    })
    .select('id', 'created_at', 'kind', 'reason', 'status', 'task_id');
}

/** What the inbox asks of the live missions (jobs/inbox): the same filters as its waitpoints. */
export interface LiveMissionFilter {
  createdBefore?: Date;
  ids?: string[];
  exceptIds?: string[];
  /** Keyset position in (created_at desc, id desc) order, at millisecond precision. */
  after?: { createdAt: string; id: string };
}

/** The account's live missions (open, inProgress), newest first, at most `limit`. */
export async function liveMissions(
  db: Db,
  accountId: string,
  statuses: readonly string[],
  f: LiveMissionFilter,
  limit: number,
): Promise<MissionRow[]> {
  const created = "date_trunc('milliseconds', created_at)";
  const q = db('proxy_missions')
    .where({ account_id: accountId })
    .whereIn('status', [...statuses]);
  if (f.createdBefore) q.andWhere('created_at', '<=', f.createdBefore);
  if (f.ids) q.whereIn('id', f.ids);
  if (f.exceptIds && f.exceptIds.length > 0) q.whereNotIn('id', f.exceptIds);
  if (f.after) q.andWhereRaw(`(${created}, id) < (?::timestamptz, ?)`, [f.after.createdAt, f.after.id]);
  return q.orderByRaw(`${created} DESC, id DESC`).limit(limit);
}
