/** The run's segment end: the finalizer's one-round-trip read and its one-statement write. */
import { prepared, type Db } from './knex.js';
import type { RunRow, StepRow } from './runs.js';
import type { WaitpointRow } from './run-steps.js';
import { outboxCtes, type OutboxEvent } from './outbox.js';

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
