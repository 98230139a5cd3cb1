import type { Db } from './knex.js';
import type { RunRow } from './runs.js';

/**
 * Writes of the run engine outside the hot step statements. The run state
 * machine (jobs/orchestrator/run-state.ts) decides which moves are legal and
 * passes them in as `from`; these only say it in SQL.
 */
export async function moveRunStatus(
  db: Db,
  runId: string,
  from: string[],
  to: string,
  finished: boolean,
  fields: Record<string, unknown> = {},
): Promise<boolean> {
  const n = await db('runs')
    .where({ id: runId })
    .whereIn('status', from)
    .update({ status: to, updated_at: db.fn.now(), finished_at: finished ? db.fn.now() : null, ...fields });
  return n > 0;
}

export async function finishStep(db: Db, stepId: string, status: 'failed' | 'canceled', error?: string): Promise<void> {
  await db('run_steps')
    .where({ id: stepId })
    .update({ status, ...(error !== undefined ? { error: error.slice(0, 2000) } : {}), finished_at: db.fn.now() });
}

/** Closes the run's open waitpoint (cancel): nothing can resolve it afterwards. */
export async function closeOpenWaitpoint(db: Db, runId: string, resolution: Record<string, unknown>): Promise<void> {
  await db('waitpoints')
    .where({ run_id: runId })
    .whereNull('resolved_at')
    .update({ resolved_at: db.fn.now(), resolution: JSON.stringify(resolution) });
}

/** The run row, locked until the transaction ends: resume, cancel and finalize of one run serialise on it. */
export async function lockRun(trx: Db, accountId: string, runId: string): Promise<RunRow | null> {
  return (await trx('runs').where({ id: runId, account_id: accountId }).forUpdate().first()) ?? null;
}

/** The run's open waitpoint, locked until the transaction ends, so it resolves exactly once. */
export async function lockOpenWaitpoint(trx: Db, runId: string) {
  return (await trx('waitpoints').where({ run_id: runId }).whereNull('resolved_at').forUpdate().first()) ?? null;
}

export async function resolveWaitpoint(
  trx: Db,
  waitpointId: string,
  resolution: Record<string, unknown>,
): Promise<void> {
  await trx('waitpoints')
    .where({ id: waitpointId })
    .update({ resolved_at: trx.fn.now(), resolution: JSON.stringify(resolution) });
}

/**
 * Queues the run's next segment, possibly on a longer route (a resume that continues into another domain). `held`:
 * it waits for a place among its account's runs in flight (shared/db/admissions.ts), ordered by its submission time,
 * so it goes before the runs submitted after it; its place of the last segment is not its own any more.
 */
export async function queueNextSegment(
  trx: Db,
  runId: string,
  from: string[],
  segment: number,
  route: string[],
  routing: Record<string, unknown>,
  held: boolean,
): Promise<RunRow | null> {
  const [row] = await trx('runs')
    .where({ id: runId })
    .whereIn('status', from)
    .update({
      status: 'queued',
      segment,
      route,
      routing: JSON.stringify(routing),
      updated_at: trx.fn.now(),
      finished_at: null,
      slot: null,
      held_at: held ? trx.ref('created_at') : null,
    })
    .returning('*');
  return (row as RunRow | undefined) ?? null;
}

export interface RunInsert {
  id: string;
  accountId: string;
  conversationId: string | null;
  taskId: string | null;
  request: string;
  input: Record<string, unknown>;
  route: string[];
  routing: Record<string, unknown>;
  channel: string;
  /** The member who submitted the run, and the scopes it was submitted with: the run acts within them. */
  submittedBy: string | null;
  grantScopes: string[];
}

export interface StalledRun {
  id: string;
  account_id: string;
  status: string;
  segment: number;
  route: string[];
  drives: number;
  updated_at: Date;
  /** `updated_at` as Postgres prints it, to the microsecond (a Date keeps milliseconds): the page cursor. */
  at: string;
  running_step: string | null;
  running_domain: string | null;
}

/** Where a paged scan of runs stopped: the last row's `updated_at` (as `at`) and id, the scan's order. */
export interface RunCursor {
  at: string;
  id: string;
}

/** Runs after `after` in (updated_at, id) order; a re-driven run's updated_at moves to now, out of the scan. */
const AFTER = `(?::timestamptz IS NULL OR (r.updated_at, r.id) > (?::timestamptz, ?::text))`;
const afterBindings = (after?: RunCursor) => [after?.at ?? null, after?.at ?? null, after?.id ?? ''];

/**
 * Runs that are not resting and have made no progress: queued for longer than
 * `queuedSec`, or running with no step started, heartbeating or finishing for
 * longer than `runningSec`. Their flow was lost or gave up (an outage
 * outlasted its retries, a worker died past BullMQ's stall handling). A held
 * run has no flow yet: it waits for a place (jobs/orchestrator/admission.ts).
 * One page of `limit`, after `after`.
 */
export async function stalledRuns(
  db: Db,
  queuedSec: number,
  runningSec: number,
  limit = 100,
  after?: RunCursor,
): Promise<StalledRun[]> {
  const result = await db.raw(
    `SELECT r.id, r.account_id, r.status, r.segment, r.route, r.drives, r.updated_at, r.updated_at::text AS at,
        running.id AS running_step,
        running.domain AS running_domain
     FROM runs r
     LEFT JOIN LATERAL (SELECT s.id, s.domain FROM run_steps s WHERE s.run_id = r.id AND s.status = 'running'
         ORDER BY s.segment DESC, s.idx DESC LIMIT 1) running ON true
     WHERE r.status IN ('queued', 'running') AND r.held_at IS NULL
       AND r.updated_at < now() - make_interval(secs => CASE WHEN r.status = 'queued' THEN ?::float8 ELSE ?::float8 END)
       AND NOT EXISTS (SELECT 1 FROM run_steps s WHERE s.run_id = r.id
                       AND greatest(s.started_at, s.heartbeat_at, s.finished_at) > now() - make_interval(secs =>
                           ?::float8))
       AND ${AFTER}
     ORDER BY r.updated_at, r.id LIMIT ?`,
    [queuedSec, runningSec, runningSec, ...afterBindings(after), limit],
  );
  return result.rows;
}

/**
 * Runs that are not resting, quiet for `quietSec` (no change, no step
 * activity) and with no step running: nothing in Postgres says anyone is
 * moving them, so they move only if a job of theirs is still in Redis
 * (jobs/orchestrator/lost-runs.ts asks). A run with a step `running` is left
 * to `stalledRuns`: its worker may still be on it. One page, after `after`.
 */
export async function quietRuns(db: Db, quietSec: number, limit = 100, after?: RunCursor): Promise<StalledRun[]> {
  const result = await db.raw(
    `SELECT r.id, r.account_id, r.status, r.segment, r.route, r.drives, r.updated_at, r.updated_at::text AS at,
        NULL AS running_step,
        NULL AS running_domain
     FROM runs r
     WHERE r.status IN ('queued', 'running') AND r.held_at IS NULL
       AND r.updated_at < now() - make_interval(secs => ?::float8)
       AND NOT EXISTS (SELECT 1 FROM run_steps s WHERE s.run_id = r.id AND (s.status = 'running'
                       OR greatest(s.started_at, s.heartbeat_at, s.finished_at) > now() - make_interval(secs =>
                           ?::float8)))
       AND ${AFTER}
     ORDER BY r.updated_at, r.id LIMIT ?`,
    [quietSec, quietSec, ...afterBindings(after), limit],
  );
  return result.rows;
}

/** Counts a re-drive of a run that is still not resting; false when it came to rest meanwhile. */
export async function markRedriven(db: Db, runId: string, drives: number): Promise<boolean> {
  const n = await db('runs')
    .where({ id: runId, drives: drives - 1 })
    .whereIn('status', ['queued', 'running'])
    .update({ drives, updated_at: db.fn.now() });
  return n > 0;
}

export async function lastResolvedWaitpoint(db: Db, runId: string) {
  return (
    (await db('waitpoints')
      .where({ run_id: runId })
      .whereNotNull('resolved_at')
      .orderBy('resolved_at', 'desc')
      .first()) ?? null
  );
}

/**
 * Gives a run without a task the one a step made for it (the proxy step's mission needs one): the task then follows the
 * run.
 */
export async function attachTaskToRun(db: Db, runId: string, taskId: string): Promise<boolean> {
  return (await db('runs').where({ id: runId }).whereNull('task_id').update({ task_id: taskId })) > 0;
}
