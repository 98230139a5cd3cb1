/**
 * Per-account admission of runs (jobs/orchestrator/admission.ts decides; this says it in SQL). A run in flight holds
 * one of its account's places (`runs.slot`, unique among the account's queued and running runs); a run beyond them is
 * held (`runs.held_at`, no slot) until a place frees. `run_admissions` keeps, per account, its limit and its
 * admission pace; `run_hold_tallies` how many runs it holds (striped, so that held submissions do not queue on one
 * row lock, as they did on the first design's single tally).
 */
import { prepared, type Db } from './knex.js';
import type { RunRow } from './runs.js';
import type { RunInsert } from './run-writes.js';

/** The account's queued and running runs that hold a place: `runs_account_slots`. */
const TAKEN = `SELECT slot FROM runs WHERE account_id = (SELECT account FROM p) AND slot IS NOT NULL
                 AND status IN ('queued', 'running')`;
/**
 * The places a holding account refills up to: its plan's `cap`, or `contended` while another account has a run in
 * flight (found on `runs_account_slots`, which holds only runs in flight, so the scan stops at the first other one).
 */
const share = (cap: string) => `CASE WHEN (SELECT contended FROM p) < ${cap} AND EXISTS (
    SELECT 1 FROM runs o WHERE o.slot IS NOT NULL AND o.status IN ('queued', 'running')
      AND o.account_id <> (SELECT account FROM p)) THEN (SELECT contended FROM p) ELSE ${cap} END`;
/**
 * How many runs the account holds: the sum of its striped tally (migration 20261226000000_run_hold_tallies.ts), which
 * triggers keep in each transaction that holds or releases a run. 64 rows at most, however long the hold.
 */
const HOLD_TALLY = `SELECT coalesce(sum(held), 0)::int AS n FROM run_hold_tallies
                    WHERE account_id = (SELECT account FROM p)`;
/** The account's held runs, in the order they start: `runs_held`. */
const HELD = `runs.account_id = (SELECT account FROM p) AND runs.held_at IS NOT NULL AND runs.status = 'queued'`;

export interface Admission {
  /** Places the account's plan gives (runs in flight at once). */
  cap: number;
  /** Runs the account may hold beyond them; one more is refused. */
  heldMax: number;
  /** False: hold the run whatever is free (a last try after the places it picked were taken under it). */
  pickable: boolean;
}

/** A run as its submission wrote it, with its hold as the insert saw it (null: it took a place). */
export type SubmittedRun = RunRow & { hold: HoldState | null };

export type InsertedRun = { run: SubmittedRun } | { run: null; picked: boolean; admitIntervalMs: number | null };

/**
 * Inserts a queued run with its first event (sequence 1) in one statement, and decides its admission there: a free
 * place, picked at random among the free ones (so racing submissions seldom pick the same), unless the account
 * already holds runs (they go first); otherwise the run is held at the back (`position`) while the account holds
 * fewer than `heldMax`. `run: null`: not inserted, because its place was taken under it (`picked`: try again) or the
 * hold is full.
 */
export async function insertRun(
  db: Db,
  r: RunInsert,
  event: { type: string; data: Record<string, unknown> },
  a: Admission,
): Promise<InsertedRun> {
  const result = await prepared(
    db,
    'insert_run_admitted',
    `WITH p AS (SELECT ?::text AS account, ?::int AS cap, ?::int AS held_max, ?::boolean AS pickable),
     pick AS (
       SELECT s FROM generate_series(0, (SELECT cap FROM p) - 1) s
       WHERE (SELECT pickable FROM p) AND NOT EXISTS (SELECT 1 FROM runs WHERE ${HELD})
         AND s NOT IN (${TAKEN})
       ORDER BY random() LIMIT 1),
     known AS (
       INSERT INTO run_admissions (account_id, cap)
       SELECT account, cap FROM p WHERE NOT EXISTS (SELECT 1 FROM run_admissions WHERE account_id = p.account)
       ON CONFLICT (account_id) DO NOTHING),
     -- A plan change reaches the limit; an unchanged one writes (and locks) nothing.
     recap AS (
       UPDATE run_admissions a SET cap = p.cap FROM p WHERE a.account_id = p.account AND a.cap <> p.cap),
     -- The account's hold from its striped tally (64 rows at most, kept by triggers), not a count of its held runs.
     hold AS (
       SELECT n + 1 AS held FROM p, (${HOLD_TALLY}) h WHERE NOT EXISTS (SELECT 1 FROM pick) AND n < held_max),
     run AS (
       INSERT INTO runs (id, account_id, conversation_id, task_id, status, request, input, route, routing, channel,
                         event_seq, submitted_by, grant_scopes, slot, held_at)
       SELECT ?, p.account, ?, ?, 'queued', ?, ?::jsonb, ARRAY(SELECT jsonb_array_elements_text(?::jsonb)), ?::jsonb,
              ?, 1, ?, ARRAY(SELECT jsonb_array_elements_text(?::jsonb)), (SELECT s FROM pick),
              CASE WHEN EXISTS (SELECT 1 FROM hold) THEN now() END
       FROM p WHERE EXISTS (SELECT 1 FROM pick) OR EXISTS (SELECT 1 FROM hold)
       ON CONFLICT (account_id, slot) WHERE slot IS NOT NULL AND status IN ('queued', 'running') DO NOTHING
       RETURNING *),
     ev AS (
       INSERT INTO run_events (run_id, seq, account_id, type, data)
       SELECT id, 1, account_id, ?, ?::jsonb || CASE WHEN held_at IS NULL THEN '{}'::jsonb
           ELSE jsonb_build_object('hold', jsonb_build_object('position', (SELECT held FROM hold),
                                                              'inFlightLimit', (SELECT cap FROM p))) END
       FROM run)
     SELECT run.*, (SELECT held FROM hold) AS admission_position, EXISTS (SELECT 1 FROM pick) AS admission_picked,
       CASE WHEN run.held_at IS NOT NULL THEN (SELECT count(*) FROM (${TAKEN}) t)::int END AS admission_in_flight,
       CASE WHEN run.id IS NULL THEN (SELECT admit_interval_ms FROM run_admissions
                                      WHERE account_id = (SELECT account FROM p)) END AS admission_interval_ms
     FROM (SELECT 1) one LEFT JOIN run ON true`,
    [
      r.accountId,
      a.cap,
      a.heldMax,
      a.pickable,
      r.id,
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
  const {
    admission_position: position,
    admission_picked: picked,
    admission_interval_ms: admitIntervalMs,
    admission_in_flight: inFlight,
    ...run
  } = result.rows[0];
  if (run.id === null) return { run: null, picked, admitIntervalMs };
  const hold = run.held_at ? { position, heldAt: run.held_at, inFlight, inFlightLimit: a.cap } : null;
  return { run: { ...(run as RunRow), hold } };
}

/** Whether the account holds runs and has a free place for one: one row read, plus a count only when it holds. */
export async function admissionDue(db: Db, accountId: string, contended: number): Promise<boolean> {
  const result = await prepared(
    db,
    'admission_due',
    `WITH p AS (SELECT ?::text AS account, ?::int AS contended)
     SELECT EXISTS (SELECT 1 FROM runs WHERE ${HELD})
       AND (SELECT count(*) FROM (${TAKEN}) t) < ${share('a.cap')} AS due
     FROM run_admissions a WHERE a.account_id = (SELECT account FROM p)`,
    [accountId, contended],
  );
  return Boolean(result.rows[0]?.due);
}

/** The account's admission row, locked until the transaction ends: admissions of one account serialise on it. */
export async function lockAdmissions(trx: Db, accountId: string): Promise<{ cap: number } | null> {
  return (await trx('run_admissions').where({ account_id: accountId }).forUpdate().first('cap')) ?? null;
}

export interface AdmittedRun {
  id: string;
  segment: number;
  route: string[];
  /** The waitpoint a resumed segment starts from (its step), null for a run's first segment. */
  resume: { id: string; stepIndex: number } | null;
  /** Its `run.admitted` event. */
  seq: number;
  created_at: Date;
  data: Record<string, unknown>;
}

/** Milliseconds since the account's last admission, per run admitted now. */
const GAP = `extract(epoch FROM now() - a.last_admitted_at) * 1000 / (SELECT count(*) FROM admitted)`;

/**
 * Admits the account's oldest held runs into its free places (under `lockAdmissions`): each gets a free place,
 * loses its hold, and has a `run.admitted` event appended; the account's admission pace follows.
 * Held runs another transaction has locked (a cancel, a resume) are skipped, not waited for: those transactions lock
 * the run before this row, so waiting could deadlock; admitDue looks again shortly. Throws a unique violation when
 * a submission took a place under it (the caller tries again).
 */
export async function admitFromHold(
  trx: Db,
  accountId: string,
  places: { cap: number; contended: number },
): Promise<AdmittedRun[]> {
  const result = await prepared(
    trx,
    'admit_from_hold',
    `WITH p AS (SELECT ?::text AS account, ?::int AS cap, ?::int AS contended),
     share AS (SELECT ${share('(SELECT cap FROM p)')} AS places),
     free AS (
       SELECT s, row_number() OVER (ORDER BY random()) AS n
       FROM generate_series(0, (SELECT places FROM share) - 1) s WHERE s NOT IN (${TAKEN})),
     -- Places past the share stay taken until their runs rest, and count against it.
     room AS (SELECT LEAST((SELECT count(*) FROM free), GREATEST(0, (SELECT places FROM share) -
                                                         (SELECT count(*) FROM (${TAKEN}) t))) AS n),
     next AS (
       SELECT id, held_at, updated_at FROM runs WHERE ${HELD}
       ORDER BY held_at, id LIMIT (SELECT n FROM room) FOR UPDATE SKIP LOCKED),
     numbered AS (SELECT id, updated_at AS since, row_number() OVER (ORDER BY held_at, id) AS n FROM next),
     admitted AS (
       UPDATE runs r SET slot = free.s, held_at = NULL, updated_at = now(), event_seq = r.event_seq + 1
       FROM numbered JOIN free USING (n) WHERE r.id = numbered.id
       RETURNING r.id, r.account_id, r.segment, r.route, r.event_seq, numbered.since, numbered.n,
         (SELECT jsonb_build_object('id', w.id, 'stepIndex', w.step_index) FROM waitpoints w
          WHERE w.run_id = r.id AND w.segment = r.segment - 1 AND w.resolved_at IS NOT NULL
          ORDER BY w.resolved_at DESC LIMIT 1) AS resume),
     ev AS (
       INSERT INTO run_events (run_id, seq, account_id, type, data)
       SELECT id, event_seq, account_id, 'trace',
              jsonb_build_object('event', 'run.admitted', 'heldMs', round(extract(epoch FROM now() - since) * 1000))
       FROM admitted RETURNING run_id, seq, created_at, data),
     counted AS (
       UPDATE run_admissions a
       SET last_admitted_at = CASE WHEN EXISTS (SELECT 1 FROM admitted) THEN now() ELSE a.last_admitted_at END,
           -- The pace: time between admissions per run admitted, smoothed (the newest gap weighs 0.3).
           admit_interval_ms = CASE WHEN NOT EXISTS (SELECT 1 FROM admitted) OR a.last_admitted_at IS NULL
               THEN a.admit_interval_ms
             WHEN a.admit_interval_ms IS NULL THEN round(${GAP})
             ELSE round(0.7 * a.admit_interval_ms + 0.3 * ${GAP}) END
       WHERE a.account_id = (SELECT account FROM p) AND EXISTS (SELECT 1 FROM admitted))
     SELECT a.id, a.segment, a.route, a.resume, e.seq, e.created_at, e.data
     FROM admitted a JOIN ev e ON e.run_id = a.id ORDER BY a.n`,
    [accountId, places.cap, places.contended],
  );
  return result.rows;
}

/** Accounts that hold runs, least recently admitted first. */
export async function accountsHolding(db: Db, limit: number): Promise<string[]> {
  const result = await db.raw(
    `SELECT a.account_id FROM run_admissions a
     WHERE a.account_id IN (SELECT account_id FROM runs WHERE held_at IS NOT NULL AND status = 'queued')
     ORDER BY a.last_admitted_at NULLS FIRST, a.account_id LIMIT ?`,
    [limit],
  );
  return result.rows.map((r: { account_id: string }) => r.account_id);
}

/**
 * Whether a resumed run is held until a place frees: when the account has an admission row. Without one (its runs
 * are from before admission) the resumed run goes on unheld. A read: nothing to tally.
 */
export async function holdResumed(trx: Db, accountId: string): Promise<boolean> {
  return Boolean(await trx('run_admissions').where({ account_id: accountId }).first('account_id'));
}

export interface HoldState {
  /** 1: the next of the account's held runs to start. */
  position: number;
  heldAt: Date;
  inFlight: number;
  inFlightLimit: number;
}

/** Where a held run stands: its place among the account's held runs and the account's runs in flight. */
export async function holdOf(db: Db, runId: string): Promise<HoldState | null> {
  const result = await db.raw(
    `WITH r AS (SELECT id, account_id, held_at FROM runs WHERE id = ? AND held_at IS NOT NULL AND status = 'queued'),
     p AS (SELECT account_id AS account FROM r)
     SELECT r.held_at,
       (SELECT count(*) FROM runs WHERE ${HELD} AND (runs.held_at, runs.id) < (r.held_at, r.id))::int + 1 AS position,
       (SELECT count(*) FROM (${TAKEN}) t)::int AS in_flight,
       (SELECT cap FROM run_admissions WHERE account_id = r.account_id) AS cap
     FROM r`,
    [runId],
  );
  const row = result.rows[0];
  if (!row) return null;
  return { position: row.position, heldAt: row.held_at, inFlight: row.in_flight, inFlightLimit: row.cap ?? 0 };
}
