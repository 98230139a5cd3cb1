import type { EventGuard, RunRow } from './runs.js';
import { prepared, type Db } from './knex.js';

export interface StepBegin {
  stepId: string;
  runId: string;
  segment: number;
  index: number;
  domain: string;
  /** The segment starts with this step: no earlier step of the segment must have completed. */
  first: boolean;
  /** The waitpoint this step resumes, read in the same statement. */
  resumeWaitpointId?: string;
  /** The `handoff` event's data announcing the start; the statement adds `message` ("… step i of n"). */
  event: Record<string, unknown>;
}

export interface BegunStep {
  run: RunRow & { waiting: boolean; step_status: string | null; prev_status: string | null };
  /** The start event as written, or null when the step did not start (see beginStep). */
  started: { seq: number; created_at: Date; data: Record<string, unknown> } | null;
  /** Completed steps with output, in route order (segment, index). */
  prior: Array<{ segment: number; idx: number; domain: string; output: Record<string, unknown> }>;
  resumeWaitpoint: WaitpointRow | null;
}

/**
 * A step's start in one round trip: reads what decides whether it runs (the
 * run, an open waitpoint, this step's and the previous step's status), and,
 * only when it may run, marks the run and the step running (a retry counts an
 * attempt) and appends the start event; it also returns the earlier steps'
 * outputs and the waitpoint it resumes. Only a run that is queued or running
 * in this very segment, not waiting, whose step is not completed and whose
 * previous step is (unless this one is first) starts: a cancel, a failure or
 * a newer segment is never undone by a late step. Null when the run is gone.
 */
export async function beginStep(db: Db, s: StepBegin): Promise<BegunStep | null> {
  const result = await prepared(
    db,
    'begin_step',
    `WITH r AS (
       SELECT r.*, EXISTS (SELECT 1 FROM waitpoints w WHERE w.run_id = r.id AND w.resolved_at IS NULL) AS waiting,
              (SELECT s.status FROM run_steps s WHERE s.id = ?) AS step_status,
              (SELECT s.status FROM run_steps s WHERE s.run_id = r.id AND s.segment = ? AND s.idx = ?) AS prev_status
       FROM runs r WHERE r.id = ?),
     run AS (
       UPDATE runs SET status = 'running', updated_at = now(), event_seq = runs.event_seq + 1
       FROM r WHERE runs.id = r.id AND runs.segment = ? AND runs.status IN ('queued', 'running')
         AND NOT r.waiting AND r.step_status IS DISTINCT FROM 'completed' AND (?::boolean
             OR r.prev_status = 'completed')
       RETURNING runs.event_seq, runs.account_id, cardinality(runs.route) AS steps),
     step AS (
       INSERT INTO run_steps (id, run_id, account_id, segment, idx, domain, status, attempts, started_at, heartbeat_at)
       SELECT ?, ?, account_id, ?, ?, ?, 'running', 1, now(), now() FROM run
       ON CONFLICT (id) DO UPDATE SET status = 'running', attempts = run_steps.attempts + 1, started_at = now(),
           heartbeat_at = now()
       RETURNING id),
     ev AS (
       INSERT INTO run_events (run_id, seq, account_id, type, data)
       SELECT ?, event_seq, account_id, 'handoff', ?::jsonb || jsonb_build_object('message',
           ?::text || ' started (step ' || ? || ' of ' || steps || ')') FROM run
       RETURNING seq, created_at, data)
     SELECT r.*, to_jsonb(ev) AS started,
       (SELECT coalesce(jsonb_agg(jsonb_build_object('segment', s.segment, 'idx', s.idx, 'domain', s.domain,
           'output', s.output) ORDER BY s.segment, s.idx), '[]')
        FROM run_steps s WHERE s.run_id = r.id AND s.status = 'completed' AND s.output IS NOT NULL) AS prior,
       (SELECT to_jsonb(w) FROM waitpoints w WHERE w.id = ?) AS resume_waitpoint
     FROM r LEFT JOIN ev ON true`,
    [
      s.stepId,
      s.segment,
      s.index - 1,
      s.runId,
      s.segment,
      s.first,
      s.stepId,
      s.runId,
      s.segment,
      s.index,
      s.domain,
      s.runId,
      JSON.stringify(s.event),
      s.domain,
      s.index + 1,
      s.resumeWaitpointId ?? null,
    ],
  );
  const row = result.rows[0];
  if (!row) return null;
  const { started, prior, resume_waitpoint: resumeWaitpoint, ...run } = row;
  return {
    run,
    started: started ? { ...started, created_at: new Date(started.created_at) } : null,
    prior,
    resumeWaitpoint,
  };
}

export async function heartbeatStep(db: Db, stepId: string): Promise<void> {
  await db('run_steps').where({ id: stepId }).update({ heartbeat_at: db.fn.now() });
}

/** Keeps the last transient error of a step BullMQ will retry. */
export async function noteStepError(db: Db, stepId: string, message: string): Promise<void> {
  await db('run_steps')
    .where({ id: stepId })
    .update({ error: message.slice(0, 1000) });
}

/** A completed step's stored parts, as JSON text. */
export interface StepFields {
  output: string;
  evidence: string;
  conversation: string;
  extra: string;
}

/**
 * Completes the step in the same statement that appends its events (see appendEvents): they commit together, and only
 * once.
 */
export function completeStepGuard(stepId: string, f: StepFields): EventGuard {
  return {
    name: 'step',
    cte: `step AS (UPDATE run_steps SET status = 'completed', output = ?::jsonb, evidence = ?::jsonb,
        conversation = ?::jsonb, extra = ?::jsonb, error = NULL, finished_at = now()
           WHERE id = ? AND status <> 'completed' RETURNING id)`,
    bindings: [f.output, f.evidence, f.conversation, f.extra, stepId],
  };
}

/** Completes the step unless it already was; false on a replay. */
export async function completeStepRow(trx: Db, stepId: string, f: StepFields): Promise<boolean> {
  return (
    (await trx('run_steps')
      .where({ id: stepId })
      .whereNot({ status: 'completed' })
      .update({ status: 'completed', ...f, error: null, finished_at: trx.fn.now() })) > 0
  );
}

export interface WaitpointInsert {
  id: string;
  runId: string;
  accountId: string;
  kind: string;
  segment: number;
  index: number;
  domain: string;
  payload: Record<string, unknown>;
  /**
   * Seconds until the clock fails the waitpoint closed; null: it does not expire (its domain closes it, as proxy does).
   */
  ttlSeconds?: number | null;
}

export async function insertWaitpoint(trx: Db, w: WaitpointInsert): Promise<void> {
  await trx('waitpoints').insert({
    id: w.id,
    run_id: w.runId,
    account_id: w.accountId,
    kind: w.kind,
    segment: w.segment,
    step_index: w.index,
    domain: w.domain,
    payload: JSON.stringify(w.payload),
    // Postgres's clock, like the sweep that compares against it.
    expires_at: w.ttlSeconds ? trx.raw('now() + make_interval(secs => ?)', [w.ttlSeconds]) : null,
  });
}

export interface WaitpointRow {
  id: string;
  run_id: string;
  account_id: string;
  kind: string;
  segment: number;
  step_index: number;
  domain: string;
  payload: Record<string, unknown>;
  resolution: Record<string, unknown> | null;
  resolved_at: string | Date | null;
  expires_at?: Date | null;
  escalated_at?: Date | null;
}

/**
 * The run's newest resolved waitpoint whose answer named `itemId`, else that offered it among its choices: a second
 * answer (the same item again, or another item of a choice already made) names it in its 409.
 */
export async function resolvedWaitpointOfItem(
  db: Db,
  accountId: string,
  runId: string,
  itemId: string,
): Promise<WaitpointRow | null> {
  return (
    (await db('waitpoints')
      .where({ run_id: runId, account_id: accountId })
      .whereNotNull('resolved_at')
      .whereRaw("(resolution->>'itemId' = ? OR payload->'choices' @> ?::jsonb)", [itemId, JSON.stringify([{ itemId }])])
      .orderByRaw("(resolution->>'itemId' = ?) DESC, resolved_at DESC", [itemId])
      .first()) ?? null
  );
}

/**
 * Step outputs (by domain, later segments winning) of the task's newest run
 * that completed a step: the evidence a mandate's resolve rules are checked
 * against when a settlement comes through the API rather than a run.
 */
export async function latestTaskRunOutputs(
  db: Db,
  accountId: string,
  taskId: string,
): Promise<Record<string, Record<string, unknown>>> {
  const result = await db.raw(
    `SELECT s.domain, s.output FROM run_steps s
     WHERE s.status = 'completed' AND s.run_id = (
       SELECT r.id FROM runs r WHERE r.task_id = ? AND r.account_id = ?
         AND EXISTS (SELECT 1 FROM run_steps c WHERE c.run_id = r.id AND c.status = 'completed')
       ORDER BY r.id DESC LIMIT 1)
     ORDER BY s.segment, s.idx`,
    [taskId, accountId],
  );
  return Object.fromEntries(
    (result.rows as Array<{ domain: string; output: Record<string, unknown> }>).map((r) => [r.domain, r.output]),
  );
}
