import type { Db } from './knex.js';
import type { RunRow } from './runs.js';

/**
 * Writes of the run engine outside the hot step statements. The run state
 * machine (jobs/orchestrator/run-state.ts) decides which moves are legal and
 * passes them in as `from`; these only say it in SQL.
 */
export async function moveRunStatus(db: Db, runId: string, from: string[], to: string, finished: boolean, fields: Record<string, unknown> = {}): Promise<boolean> {
  const n = await db('runs').where({ id: runId }).whereIn('status', from)
    .update({ status: to, updated_at: db.fn.now(), finished_at: finished ? db.fn.now() : null, ...fields });
  return n > 0;
}

export async function finishStep(db: Db, stepId: string, status: 'failed' | 'canceled', error?: string): Promise<void> {
  await db('run_steps').where({ id: stepId }).update({ status, ...(error !== undefined ? { error: error.slice(0, 2000) } : {}), finished_at: db.fn.now() });
}

/** Closes the run's open waitpoint (cancel): nothing can resolve it afterwards. */
export async function closeOpenWaitpoint(db: Db, runId: string, resolution: Record<string, unknown>): Promise<void> {
  await db('waitpoints').where({ run_id: runId }).whereNull('resolved_at').update({ resolved_at: db.fn.now(), resolution: JSON.stringify(resolution) });
}

/** The run's open waitpoint, locked until the transaction ends, so it resolves exactly once. */
export async function lockOpenWaitpoint(trx: Db, runId: string) {
  return (await trx('waitpoints').where({ run_id: runId }).whereNull('resolved_at').forUpdate().first()) ?? null;
}

export async function resolveWaitpoint(trx: Db, waitpointId: string, resolution: Record<string, unknown>): Promise<void> {
  await trx('waitpoints').where({ id: waitpointId }).update({ resolved_at: trx.fn.now(), resolution: JSON.stringify(resolution) });
}

/** Queues the run's next segment, possibly on a longer route (a resume that continues into another domain). */
export async function queueNextSegment(trx: Db, runId: string, from: string[], segment: number, route: string[], routing: Record<string, unknown>): Promise<boolean> {
  const n = await trx('runs').where({ id: runId }).whereIn('status', from)
    .update({ status: 'queued', segment, route, routing: JSON.stringify(routing), updated_at: trx.fn.now(), finished_at: null });
  return n > 0;
}

export interface RunInsert { id: string; accountId: string; conversationId: string | null; taskId: string | null; request: string; input: Record<string, unknown>; route: string[]; routing: Record<string, unknown>; channel: string }

export async function insertRun(trx: Db, r: RunInsert): Promise<RunRow> {
  const [row] = await trx('runs').insert({
    id: r.id, account_id: r.accountId, conversation_id: r.conversationId, task_id: r.taskId, status: 'queued', request: r.request,
    input: JSON.stringify(r.input), route: r.route, routing: JSON.stringify(r.routing), channel: r.channel,
  }).returning('*');
  return row as RunRow;
}

/** Locks the run row for the finalizer (two finalizers of a segment serialise here) and says whether the segment already has its `final` event. */
export async function lockForFinalize(trx: Db, runId: string, segment: number): Promise<{ status: string; finalized: boolean }> {
  const locked = await trx('runs').where({ id: runId }).forUpdate().first('status');
  const final = await trx('run_events').where({ run_id: runId, type: 'final' }).whereRaw(`(data->>'segment')::int = ?`, [segment]).first('seq');
  return { status: locked.status, finalized: Boolean(final) };
}

/** Adds the result to a run that a failure or a cancel already ended. */
export async function storeEndedRunResult(trx: Db, runId: string, results: Record<string, unknown>): Promise<void> {
  await trx('runs').where({ id: runId }).update({ results: JSON.stringify(results), proof_card_id: null, updated_at: trx.fn.now(), finished_at: trx.fn.now() });
}

export async function insertProofCard(trx: Db, row: Record<string, unknown>): Promise<void> {
  await trx('proof_cards').insert(row);
}

/** Runs whose running step stopped heartbeating for longer than `marginSec`. */
export async function staleRunningSteps(db: Db, marginSec: number): Promise<Array<{ id: string; account_id: string; segment: number; domain: string; step_id: string }>> {
  return db('runs as r').join('run_steps as s', 's.run_id', 'r.id')
    .where('r.status', 'running').andWhere('s.status', 'running')
    .andWhereRaw(`s.heartbeat_at < now() - make_interval(secs => ?)`, [marginSec])
    .select('r.id', 'r.account_id', 'r.segment', 's.domain', 's.id as step_id');
}

/** Runs still queued a minute after their last change: their flow was never enqueued (or Redis lost it). */
export async function lostQueuedRuns(db: Db, limit = 100): Promise<Array<{ id: string; segment: number; route: string[] }>> {
  return db('runs').where({ status: 'queued' }).andWhereRaw(`updated_at < now() - interval '1 minute'`).limit(limit).select('id', 'segment', 'route');
}

export async function lastResolvedWaitpoint(db: Db, runId: string) {
  return (await db('waitpoints').where({ run_id: runId }).whereNotNull('resolved_at').orderBy('resolved_at', 'desc').first()) ?? null;
}
