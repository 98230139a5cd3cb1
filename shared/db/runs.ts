import { iso, prepared, type Db } from './knex.js';
import { page } from './page.js';

export interface RunRow {
  id: string;
  account_id: string;
  conversation_id: string | null;
  task_id: string | null;
  status: string;
  request: string;
  input: Record<string, unknown>;
  route: string[];
  routing: Record<string, unknown>;
  segment: number;
  proof_card_id: string | null;
  error: string | null;
  stuck_reason: string | null;
  channel: string;
  /** The member who submitted the run (null for runs from before members). */
  submitted_by: string | null;
  /** The scopes the run was submitted with; null for runs from before grants were recorded. */
  grant_scopes: string[] | null;
  /** Its place among its account's runs in flight; null while it is held, or at rest (shared/db/admissions.ts). */
  slot?: number | null;
  /** Set while the run is held for a place (its order among the account's held runs). */
  held_at?: Date | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

export interface StepRow {
  id: string;
  run_id: string;
  segment: number;
  idx: number;
  domain: string;
  status: string;
  output: Record<string, unknown> | null;
  evidence: unknown[] | null;
  conversation: string[] | null;
  extra: {
    openQuestions?: string[];
    rejected?: Array<{ option: string; reason: string }>;
    finalStatus?: string;
  } | null;
  error: string | null;
  attempts: number;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface RunEvent {
  id: number;
  runId: string;
  type: string;
  at: string;
  [key: string]: unknown;
}

export async function getRun(db: Db, accountId: string, runId: string): Promise<RunRow | null> {
  return (await db('runs').where({ id: runId, account_id: accountId }).first()) ?? null;
}

export async function getRunById(db: Db, runId: string): Promise<RunRow | null> {
  return (await db('runs').where({ id: runId }).first()) ?? null;
}

/**
 * Appends events with the run's next sequence numbers in one statement: the
 * counter on the run row is bumped (so ids are gap-free per run and
 * concurrent writers serialise on that row) and the rows inserted.
 */
export async function appendEvents(
  db: Db,
  runId: string,
  accountId: string,
  events: Array<{ type: string; data: Record<string, unknown> }>,
  guard?: EventGuard,
): Promise<RunEvent[]> {
  if (events.length === 0) return [];
  const result = await prepared(
    db,
    `append_events${guard ? `_${guard.name}` : ''}`,
    `WITH ${guard ? `${guard.cte}, ` : ''}bump AS (
       UPDATE runs SET event_seq = event_seq + ? WHERE id = ? ${
         guard ? `AND EXISTS (SELECT 1 ` + `FROM ${guard.name})` : ''
       } RETURNING event_seq)
     INSERT INTO run_events (run_id, seq, account_id, type, data)
     SELECT ?, bump.event_seq - ? + e.o, ?, e.type, e.data
     FROM bump, jsonb_to_recordset(?::jsonb) AS e(o int, type text, data jsonb)
     RETURNING seq, created_at`,
    [
      ...(guard?.bindings ?? []),
      events.length,
      runId,
      runId,
      events.length,
      accountId,
      JSON.stringify(events.map((e, i) => ({ o: i + 1, type: e.type, data: e.data }))),
    ],
  );
  const rows = (result.rows as Array<{ seq: number; created_at: Date }>).sort((a, b) => a.seq - b.seq);
  return rows.map((r, i) => ({ id: r.seq, runId, type: events[i]!.type, at: iso(r.created_at)!, ...events[i]!.data }));
}

/**
 * A data-modifying CTE that must change a row for the events to be written
 * (for example "mark this step completed unless it already is"): the change
 * and its events then commit as one statement, or neither happens.
 */
export interface EventGuard {
  /** Names the guard's text (it is part of a prepared statement's name): one name, one text. */
  name: string;
  cte: string;
  bindings: Array<string | number | boolean | null>;
}

export async function eventsAfter(db: Db, runId: string, after: number, limit = 1000): Promise<RunEvent[]> {
  const rows = await db('run_events').where({ run_id: runId }).andWhere('seq', '>', after).orderBy('seq').limit(limit);
  return rows.map((r) => ({ id: r.seq, runId, type: r.type, at: iso(r.created_at)!, ...r.data }));
}

/**
 * In one round trip: the run's status, its last event sequence and its last `final` event's sequence (null when it
 * never rested).
 */
export async function eventTail(
  db: Db,
  runId: string,
): Promise<{ status: string | null; lastSeq: number; lastFinalSeq: number | null }> {
  const result = await db.raw(
    `SELECT (SELECT status FROM runs WHERE id = ?) AS status, max(seq) AS last_seq,
        max(seq) FILTER (WHERE type = 'final') AS last_final_seq
     FROM run_events WHERE run_id = ?`,
    [runId, runId],
  );
  const row = result.rows[0];
  return {
    status: row?.status ?? null,
    lastSeq: Number(row?.last_seq ?? 0),
    lastFinalSeq: row?.last_final_seq == null ? null : Number(row.last_final_seq),
  };
}

/** The `final` event data of the run's current segment, if that segment has rested. */
export async function currentSegmentFinal(db: Db, runId: string): Promise<{ segment: number; result: unknown } | null> {
  const result = await prepared(
    db,
    'current_segment_final',
    `SELECT e.data FROM run_events e JOIN runs r ON r.id = e.run_id WHERE e.run_id = ? AND e.type = 'final' ` +
      `AND (e.data->>'segment')::int = r.segment LIMIT 1`,
    [runId],
  );
  return result.rows[0]?.data ?? null;
}

export async function stepsOf(db: Db, runId: string): Promise<StepRow[]> {
  return db('run_steps')
    .where({ run_id: runId })
    .orderBy([{ column: 'segment' }, { column: 'idx' }]);
}

export async function openWaitpoint(db: Db, runId: string) {
  return (await db('waitpoints').where({ run_id: runId }).whereNull('resolved_at').first()) ?? null;
}

/**
 * Runs of any account resting at `status` (a domain's resting status) since `olderThanSec` ago or longer, oldest
 * first after `afterId`: what a domain's sweep re-drives (kubernetes: rollouts whose check job was lost).
 */
export async function runsRestingAt(
  db: Db,
  status: string,
  olderThanSec: number,
  afterId: string,
  limit: number,
): Promise<Array<{ id: string; account_id: string }>> {
  return db('runs')
    .where({ status })
    .whereNull('finished_at')
    .andWhere('updated_at', '<', db.raw(`now() - make_interval(secs => ?)`, [olderThanSec]))
    .andWhere('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .select('id', 'account_id');
}

export interface RunFilters {
  status?: string;
  domain?: string;
  conversationId?: string;
  createdAfter?: string;
  createdBefore?: string;
  limit: number;
  cursor?: string;
}

export async function listRuns(
  db: Db,
  accountId: string,
  f: RunFilters,
): Promise<{ rows: RunRow[]; nextCursor: string | null }> {
  const q = db('runs').where({ account_id: accountId });
  if (f.status) q.andWhere({ status: f.status });
  if (f.conversationId) q.andWhere({ conversation_id: f.conversationId });
  if (f.domain) q.andWhereRaw('? = ANY(route)', [f.domain]);
  if (f.createdAfter) q.andWhere('created_at', '>=', f.createdAfter);
  if (f.createdBefore) q.andWhere('created_at', '<', f.createdBefore);
  return page<RunRow>(q, f.limit, f.cursor);
}

/** What a list shows of a run: no input, results or routing (a live list reads these every few seconds). */
const HEAD = [
  'id',
  'account_id',
  'status',
  'route',
  'conversation_id',
  'task_id',
  'proof_card_id',
  'error',
  'stuck_reason',
  'created_at',
  'updated_at',
  'finished_at',
];

/** The account's `newest` runs and those of `ids` (the account's only), each once, without their bodies. */
export async function runHeads(db: Db, accountId: string, newest: number, ids: string[]): Promise<RunRow[]> {
  const [recent, named] = await Promise.all([
    db('runs').where({ account_id: accountId }).orderBy('created_at', 'desc').limit(newest).select(HEAD),
    ids.length ? db('runs').where({ account_id: accountId }).whereIn('id', ids).select(HEAD) : [],
  ]);
  const byId = new Map<string, RunRow>([...recent, ...named].map((r: RunRow) => [r.id, r]));
  return [...byId.values()];
}

/**
 * `EXISTS` a run `runId` (a column reference, such as `m.run_id`) that has finished, as a condition a module's query
 * composes (a proxy mission whose run ended): the SQL on runs stays here.
 */
export function runHasFinished(db: Db, runIdColumn: string) {
  return db.raw('EXISTS (SELECT 1 FROM runs r WHERE r.id = ?? AND r.finished_at IS NOT NULL)', [runIdColumn]);
}

/**
 * `EXISTS` the run `runId` in a status not among `terminal` (still going), as a condition a module's query composes.
 */
export function runIsLive(db: Db, runId: string | null, terminal: readonly string[]) {
  return db.raw('EXISTS (SELECT 1 FROM runs WHERE id = ? AND NOT (status = ANY(?)))', [runId, [...terminal]]);
}

/** Whether the account has a run for the task in `status`, submitted by the member `submittedBy`. */
export async function hasRunOfTask(
  db: Db,
  accountId: string,
  taskId: string,
  where: { status: string; submittedBy: string },
): Promise<boolean> {
  const row = await db('runs')
    .where({ account_id: accountId, task_id: taskId, status: where.status, submitted_by: where.submittedBy })
    .first('id');
  return Boolean(row);
}
