import type { Db } from './knex.js';
import type { WaitpointRow } from './run-steps.js';

/** An open waitpoint a run rests at, with what the inbox shows of its run. */
export interface RestingWaitpointRow extends WaitpointRow {
  created_at: Date;
  run_status: string;
  run_request: string;
  run_route: string[];
  run_routing: Record<string, unknown>;
  run_input: Record<string, unknown>;
  run_task_id: string | null;
  submitted_by: string | null;
}

export interface RestingWaitpointFilter {
  kinds: readonly string[];
  domain?: string;
  /** Created at or before this instant. */
  createdBefore?: Date;
  /** Only these ids, or none of `exceptIds`. */
  ids?: string[];
  exceptIds?: string[];
  /** Keyset position: rows strictly after (older than) this one in (created_at desc, id desc) order. */
  after?: { createdAt: string; id: string };
}

/** Milliseconds, the precision a client's cursor carries. */
const CREATED = "date_trunc('milliseconds', w.created_at)";

const resting = (db: Db, accountId: string) =>
  db('waitpoints as w')
    .join('runs as r', function () {
      // The run rests at it: a waitpoint written by a segment still running is not waiting for anyone yet.
      this.on('r.id', '=', 'w.run_id').andOn('r.status', '=', 'w.kind').andOn('r.segment', '=', 'w.segment');
    })
    .where('w.account_id', accountId)
    .whereNull('w.resolved_at')
    .select(
      'w.*',
      'r.status as run_status',
      'r.request as run_request',
      'r.route as run_route',
      'r.routing as run_routing',
      'r.input as run_input',
      'r.task_id as run_task_id',
      'r.submitted_by',
    );

/**
 * The account's open waitpoints of `kinds` that their runs rest at, newest first (the inbox's choices and approvals),
 * at most `limit`.
 */
export async function restingWaitpoints(
  db: Db,
  accountId: string,
  f: RestingWaitpointFilter,
  limit: number,
): Promise<RestingWaitpointRow[]> {
  const q = resting(db, accountId).whereIn('w.kind', [...f.kinds]);
  if (f.domain) q.andWhere('w.domain', f.domain);
  if (f.createdBefore) q.andWhere('w.created_at', '<=', f.createdBefore);
  if (f.ids) q.whereIn('w.id', f.ids);
  if (f.exceptIds && f.exceptIds.length > 0) q.whereNotIn('w.id', f.exceptIds);
  if (f.after) q.andWhereRaw(`(${CREATED}, w.id) < (?::timestamptz, ?)`, [f.after.createdAt, f.after.id]);
  return q.orderByRaw(`${CREATED} DESC, w.id DESC`).limit(limit);
}

/** One open waitpoint of the account that its run rests at, or null. */
export async function restingWaitpoint(db: Db, accountId: string, id: string): Promise<RestingWaitpointRow | null> {
  return (await resting(db, accountId).andWhere('w.id', id).first()) ?? null;
}

/** A waitpoint of the account, open or not (the inbox tells an answered item from an unknown one). */
export async function waitpointOfAccount(db: Db, accountId: string, id: string): Promise<WaitpointRow | null> {
  return (await db('waitpoints').where({ account_id: accountId, id }).first()) ?? null;
}

/** The members who submitted these runs of the account, by run id (a mission's run). */
export async function submittersOf(db: Db, accountId: string, runIds: string[]): Promise<Map<string, string | null>> {
  if (runIds.length === 0) return new Map();
  const rows: Array<{ id: string; submitted_by: string | null }> = await db('runs')
    .where({ account_id: accountId })
    .whereIn('id', runIds)
    .select('id', 'submitted_by');
  return new Map(rows.map((r) => [r.id, r.submitted_by]));
}
