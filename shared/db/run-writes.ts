import type { Db } from './knex.js';

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
