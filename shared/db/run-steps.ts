import type { EventGuard, RunRow } from './runs.js';
import type { Db } from './knex.js';

/**
 * Everything that decides whether a step runs at all, in one round trip: the
 * run, whether it waits, the step's own status and that of the step before it
 * in the same segment.
 */
export async function loadStepState(db: Db, runId: string, stepId: string, segment: number, prevIndex: number): Promise<(RunRow & { waiting: boolean; step_status: string | null; prev_status: string | null }) | null> {
  const state = await db.raw(
    `SELECT r.*, EXISTS (SELECT 1 FROM waitpoints w WHERE w.run_id = r.id AND w.resolved_at IS NULL) AS waiting,
            (SELECT s.status FROM run_steps s WHERE s.id = ?) AS step_status,
            (SELECT s.status FROM run_steps s WHERE s.run_id = r.id AND s.segment = ? AND s.idx = ?) AS prev_status
     FROM runs r WHERE r.id = ?`,
    [stepId, segment, prevIndex, runId],
  );
  return state.rows[0] ?? null;
}

export interface StepStart {
  stepId: string; runId: string; accountId: string; segment: number; index: number; domain: string;
  /** The `handoff` event's data announcing the start. */
  event: Record<string, unknown>;
}

/**
 * Marks the run running, the step running (a retry counts an attempt) and
 * appends the start event: one statement, so one round trip on the hot path.
 * Only a run that is queued or running in this very segment moves: a cancel,
 * a failure or a newer segment is never undone by a late step. Returns the
 * event's sequence and time, or null when the run had moved on (nothing written).
 */
export async function startStep(db: Db, s: StepStart): Promise<{ seq: number; created_at: Date } | null> {
  const started = await db.raw(
    `WITH run AS (
       UPDATE runs SET status = 'running', updated_at = now(), event_seq = event_seq + 1
       WHERE id = ? AND segment = ? AND status IN ('queued', 'running') RETURNING event_seq),
     step AS (
       INSERT INTO run_steps (id, run_id, account_id, segment, idx, domain, status, attempts, started_at, heartbeat_at)
       SELECT ?, ?, ?, ?, ?, ?, 'running', 1, now(), now() WHERE EXISTS (SELECT 1 FROM run)
       ON CONFLICT (id) DO UPDATE SET status = 'running', attempts = run_steps.attempts + 1, started_at = now(), heartbeat_at = now()
       RETURNING id)
     INSERT INTO run_events (run_id, seq, account_id, type, data) SELECT ?, event_seq, ?, 'handoff', ?::jsonb FROM run RETURNING seq, created_at`,
    [s.runId, s.segment, s.stepId, s.runId, s.accountId, s.segment, s.index, s.domain, s.runId, s.accountId, JSON.stringify(s.event)],
  );
  return started.rows[0] ?? null;
}

export async function heartbeatStep(db: Db, stepId: string): Promise<void> {
  await db('run_steps').where({ id: stepId }).update({ heartbeat_at: db.fn.now() });
}

/** Keeps the last transient error of a step BullMQ will retry. */
export async function noteStepError(db: Db, stepId: string, message: string): Promise<void> {
  await db('run_steps').where({ id: stepId }).update({ error: message.slice(0, 1000) });
}

/** A completed step's stored parts, as JSON text. */
export interface StepFields { output: string; evidence: string; conversation: string; extra: string }

/** Completes the step in the same statement that appends its events (see appendEvents): they commit together, and only once. */
export function completeStepGuard(stepId: string, f: StepFields): EventGuard {
  return {
    name: 'step',
    cte: `step AS (UPDATE run_steps SET status = 'completed', output = ?::jsonb, evidence = ?::jsonb, conversation = ?::jsonb, extra = ?::jsonb, error = NULL, finished_at = now()
           WHERE id = ? AND status <> 'completed' RETURNING id)`,
    bindings: [f.output, f.evidence, f.conversation, f.extra, stepId],
  };
}

/** Completes the step unless it already was; false on a replay. */
export async function completeStepRow(trx: Db, stepId: string, f: StepFields): Promise<boolean> {
  return (await trx('run_steps').where({ id: stepId }).whereNot({ status: 'completed' }).update({ status: 'completed', ...f, error: null, finished_at: trx.fn.now() })) > 0;
}

export interface WaitpointInsert { id: string; runId: string; accountId: string; kind: string; segment: number; index: number; domain: string; payload: Record<string, unknown> }

export async function insertWaitpoint(trx: Db, w: WaitpointInsert): Promise<void> {
  await trx('waitpoints').insert({ id: w.id, run_id: w.runId, account_id: w.accountId, kind: w.kind, segment: w.segment, step_index: w.index, domain: w.domain, payload: JSON.stringify(w.payload) });
}

export async function getWaitpoint(db: Db, waitpointId: string) {
  return (await db('waitpoints').where({ id: waitpointId }).first()) ?? null;
}
