import { prepared, type Db } from './knex.js';
import type { RunRow, StepRow } from './runs.js';
import type { WaitpointRow } from './run-steps.js';
import { outboxCtes, type OutboxEvent } from './outbox.js';

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

/** Queues the run's next segment, possibly on a longer route (a resume that continues into another domain). */
export async function queueNextSegment(
  trx: Db,
  runId: string,
  from: string[],
  segment: number,
  route: string[],
  routing: Record<string, unknown>,
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

/** Inserts a queued run with its first event (sequence 1) in one statement. */
export async function insertRun(
  db: Db,
  r: RunInsert,
  event: { type: string; data: Record<string, unknown> },
): Promise<RunRow> {
  const result = await prepared(
    db,
    'insert_run',
    `WITH run AS (
       INSERT INTO runs (id, account_id, conversation_id, task_id, status, request, input, route, routing, channel,
           event_seq,
                         submitted_by, grant_scopes)
       VALUES (?, ?, ?, ?, 'queued', ?, ?::jsonb, ARRAY(SELECT jsonb_array_elements_text(?::jsonb)), ?::jsonb, ?, 1,
               ?, ARRAY(SELECT jsonb_array_elements_text(?::jsonb))) RETURNING *),
     ev AS (INSERT INTO run_events (run_id, seq, account_id, type, data) SELECT id, 1, account_id, ?, ?::jsonb FROM run)
     SELECT * FROM run`,
    [
      r.id,
      r.accountId,
      r.conversationId,
      r.taskId,
      r.request,
      JSON.stringify(r.input),
      JSON.stringify(r.route),
      JSON.stringify(r.routing),
      r.channel,
      r.submittedBy,
      JSON.stringify(r.grantScopes),
      event.type,
      JSON.stringify(event.data),
    ],
  );
  return result.rows[0];
}

export interface SegmentEndState {
  run: RunRow & { event_seq: number };
  steps: StepRow[];
  waitpoint: WaitpointRow | null;
  /** The run's current segment already has its `final` event. */
  finalized: boolean;
}

/**
 * Everything a finalizer reads, in one round trip: the run, its steps in route order, its open waitpoint, and whether
 * its segment has ended.
 */
export async function loadSegmentEnd(db: Db, runId: string): Promise<SegmentEndState | null> {
  const result = await prepared(
    db,
    'load_segment_end',
    `SELECT r.*,
       (SELECT coalesce(jsonb_agg(to_jsonb(s) ORDER BY s.segment, s.idx), '[]') FROM run_steps s
           WHERE s.run_id = r.id) AS steps,
       (SELECT to_jsonb(w) FROM waitpoints w WHERE w.run_id = r.id AND w.resolved_at IS NULL LIMIT 1) AS waitpoint,
       EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id AND e.type = 'final'
           AND (e.data->>'segment')::int = r.segment) AS finalized
     FROM runs r WHERE r.id = ?`,
    [runId],
  );
  const row = result.rows[0];
  if (!row) return null;
  const { steps, waitpoint, finalized, ...run } = row;
  const at = (v: string | null) => (v === null ? null : new Date(v));
  return {
    run,
    waitpoint,
    finalized,
    steps: (steps as StepRow[]).map((st) => ({
      ...st,
      started_at: at(st.started_at as unknown as string),
      finished_at: at(st.finished_at as unknown as string),
    })),
  };
}

export interface SegmentEnd {
  runId: string;
  segment: number;
  /**
   * The run's event_seq when it was read: the write applies only if nothing was appended since (else the finalizer
   * reads again).
   */
  eventSeq: number;
  /** The status the run may be in (the move's guard) and the one it ends in; a run already ended keeps its status. */
  from: string[];
  status: string;
  finished: boolean;
  error: string | null;
  proofCard: {
    id: string;
    decisionId: string;
    card: Record<string, unknown>;
    decision: Record<string, unknown>;
  } | null;
  /** Run events to append in order; the last is `final`, which holds the segment's result (stored there only). */
  events: Array<{ type: string; data: Record<string, unknown> }>;
  outbox: OutboxEvent & { id: string };
}

/**
 * Ends a segment in one statement: the run's status, its proof card, its run
 * events (the `final` one carries the result) and the outbox event with its
 * delivery attempts. It
 * applies only if the run is still in the segment and status it was read in
 * and nothing was appended since (a cancel, a resume, another finalizer);
 * null then, and the caller reads again.
 */
export async function writeSegmentEnd(
  db: Db,
  e: SegmentEnd,
): Promise<{ events: Array<{ seq: number; created_at: Date }>; deliveries: number } | null> {
  const outbox = outboxCtes(e.outbox, 'moved');
  const result = await prepared(
    db,
    'write_segment_end',
    `WITH moved AS (
       UPDATE runs SET status = ?, updated_at = now(), finished_at = CASE WHEN ?::boolean THEN now() END, error = ?,
           proof_card_id = ?,
              event_seq = event_seq + ?
       WHERE id = ? AND segment = ? AND event_seq = ? AND status IN (SELECT jsonb_array_elements_text(?::jsonb))
       RETURNING account_id, event_seq),
     card AS (
       INSERT INTO proof_cards (id, account_id, run_id, decision_id, card, decision)
       SELECT ?, account_id, ?, ?, ?::jsonb, ?::jsonb FROM moved WHERE ?::text IS NOT NULL),
     appended AS (
       INSERT INTO run_events (run_id, seq, account_id, type, data)
       SELECT ?, moved.event_seq - ? + e.o, moved.account_id, e.type, e.data
       FROM moved, jsonb_to_recordset(?::jsonb) AS e(o int, type text, data jsonb)
       RETURNING seq, created_at),
     ${outbox.sql}
     SELECT (SELECT count(*) FROM moved)::int AS moved, (SELECT count(*) FROM outbox_deliveries)::int AS deliveries,
            (SELECT coalesce(jsonb_agg(jsonb_build_object('seq', seq, 'created_at', created_at) ORDER BY seq), '[]')
                FROM appended) AS events`,
    [
      e.status,
      e.finished,
      e.error,
      e.proofCard?.id ?? null,
      e.events.length,
      e.runId,
      e.segment,
      e.eventSeq,
      JSON.stringify(e.from),
      e.proofCard?.id ?? null,
      e.runId,
      e.proofCard?.decisionId ?? null,
      JSON.stringify(e.proofCard?.card ?? null),
      JSON.stringify(e.proofCard?.decision ?? null),
      e.proofCard?.id ?? null,
      e.runId,
      e.events.length,
      JSON.stringify(e.events.map((ev, i) => ({ o: i + 1, type: ev.type, data: ev.data }))),
      ...outbox.bindings,
    ],
  );
  const row = result.rows[0];
  if (!row.moved) return null;
  return {
    deliveries: row.deliveries,
    events: (row.events as Array<{ seq: number; created_at: string }>).map((ev) => ({
      seq: ev.seq,
      created_at: new Date(ev.created_at),
    })),
  };
}

export interface StalledRun {
  id: string;
  account_id: string;
  status: string;
  segment: number;
  route: string[];
  drives: number;
  running_step: string | null;
  running_domain: string | null;
}

/**
 * Runs that are not resting and have made no progress: queued for longer than
 * `queuedSec`, or running with no step started, heartbeating or finishing for
 * longer than `runningSec`. Their flow was lost or gave up (an outage
 * outlasted its retries, a worker died past BullMQ's stall handling).
 */
export async function stalledRuns(db: Db, queuedSec: number, runningSec: number, limit = 100): Promise<StalledRun[]> {
  const result = await db.raw(
    `SELECT r.id, r.account_id, r.status, r.segment, r.route, r.drives, running.id AS running_step,
        running.domain AS running_domain
     FROM runs r
     LEFT JOIN LATERAL (SELECT s.id, s.domain FROM run_steps s WHERE s.run_id = r.id AND s.status = 'running'
         ORDER BY s.segment DESC, s.idx DESC LIMIT 1) running ON true
     WHERE r.status IN ('queued', 'running')
       AND r.updated_at < now() - make_interval(secs => CASE WHEN r.status = 'queued' THEN ?::float8 ELSE ?::float8 END)
       AND NOT EXISTS (SELECT 1 FROM run_steps s WHERE s.run_id = r.id
                       AND greatest(s.started_at, s.heartbeat_at, s.finished_at) > now() - make_interval(secs =>
                           ?::float8))
     ORDER BY r.updated_at LIMIT ?`,
    [queuedSec, runningSec, runningSec, limit],
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
