import type { Config } from '../../shared/config.js';
import type { Deps } from '../../shared/deps.js';
import { iso, type Db } from '../../shared/db/knex.js';
import type { RunRow } from '../../shared/db/runs.js';
import type { RunInsert } from '../../shared/db/run-writes.js';
import {
  accountsHolding,
  admissionDue,
  admitFromHold,
  holdOf,
  insertRun,
  lockAdmissions,
  type AdmittedRun,
  type HoldState,
  type SubmittedRun,
} from '../../shared/db/admissions.js';
import { Backpressure } from '../../shared/errors.js';
import type { Plan } from '../../shared/schemas/auth.js';
import { enqueueOrLeaveToSweep, enqueueSegment } from './flow.js';
import { announce } from './run-events.js';
import { inSpan, linkToActive } from '../../shared/telemetry/spans.js';

/*
 * Per-account admission, so one account's burst cannot starve another's runs. BullMQ's queues are first in, first
 * out: 5,000 runs of one account enqueued at once would sit ahead of everyone else's. Here an account has at most
 * its plan's number of runs in flight (queued with a job, or running); a run beyond them is held in Postgres, with
 * no job, and admitted (its segment enqueued) in submission order as the account's runs come to rest. So another
 * account's run waits behind at most the places of the accounts ahead of it, never behind their backlogs.
 *
 * The costs. An account under its limit pays nothing extra at submit (the place is taken in the insert statement)
 * and one indexed read when each run comes to rest (`admitDue`). Holding and admitting cost a short transaction
 * per admission, paid only by an account that holds runs.
 */

/** Runs in flight an account's plan allows, and how many more it may have held. */
export function admissionLimits(
  config: Pick<Config, 'ACCOUNT_RUNS_IN_FLIGHT_BUILDER' | 'ACCOUNT_RUNS_IN_FLIGHT_TEAM' | 'ACCOUNT_RUNS_HELD_MAX'>,
  plan: Plan,
): { cap: number; heldMax: number } {
  const cap = plan === 'team' ? config.ACCOUNT_RUNS_IN_FLIGHT_TEAM : config.ACCOUNT_RUNS_IN_FLIGHT_BUILDER;
  return { cap, heldMax: config.ACCOUNT_RUNS_HELD_MAX };
}

/** Tries of a submission whose free place another took first; the last holds the run instead. */
const PICK_TRIES = 3;
/** Tries of an admission whose place a submission took under it (or that lost a deadlock). */
const ADMIT_TRIES = 3;
/** When admitDue looks again after a pass that left a held run and a free place (ms after each pass). */
const LOOK_AGAIN_MS = [20, 100, 500];
/** Accounts one sweep serves. */
const SWEEP_ACCOUNTS = 500;

/**
 * Inserts the run (with its first event) in a place of its account, or held when there is none; refused `429` with
 * `Retry-After` when the account already holds as many runs as it may.
 */
export async function insertAdmitted(
  db: Db,
  config: Config,
  plan: Plan,
  row: RunInsert,
  created: { type: string; data: Record<string, unknown> },
): Promise<SubmittedRun> {
  const limits = admissionLimits(config, plan);
  for (let attempt = 1; ; attempt++) {
    const inserted = await insertRun(db, row, created, { ...limits, pickable: attempt < PICK_TRIES });
    if (inserted.run) return inserted.run;
    if (!inserted.picked) throw holdFull(limits, inserted.admitIntervalMs);
  }
}

/** 429: the account's hold is full. Retry-After: the account's recent time between admissions (one more fits then). */
function holdFull(limits: { cap: number; heldMax: number }, admitIntervalMs: number | null): Backpressure {
  const retryAfter = Math.min(60, Math.max(1, Math.ceil((admitIntervalMs ?? 10_000) / 1000)));
  return new Backpressure(
    'rateLimitExceeded',
    `This account already holds ${limits.heldMax} runs waiting for one of its ${limits.cap} places in flight, the ` +
      `most it may hold; this run was not accepted (nothing was written); retry in ${retryAfter} s`,
    retryAfter,
    { reason: 'accountHold', inFlightLimit: limits.cap, heldLimit: limits.heldMax },
  );
}

/**
 * After the insert committed: an admitted run's first segment is enqueued; a held one is admitted at once if a place
 * freed since its insert read them (a run that came to rest in between, whose own check did not see this one yet).
 */
export async function startSubmitted(deps: Deps, run: RunRow): Promise<void> {
  if (run.held_at) return admitDue(deps, run.account_id);
  deps.queues.depths.added(run.route[0]!);
  await enqueueOrLeaveToSweep(deps, run.id, () => enqueueSegment(deps, run.id, 0, run.route));
}

/** Per database and account: the admission pass under way in this process, and the one queued behind it. */
const passes = new WeakMap<Db, Map<string, { running: Promise<void>; next: Promise<void> | null }>>();

/**
 * Admits the account's held runs into its free places, if it holds any and has a place: called when one of its runs
 * came to rest (finalize), was canceled, or was held. One indexed read when it holds none. Never throws: what it
 * misses (a crash, an outage) the admission sweep admits within a minute.
 *
 * Calls for one account coalesce in this process: while a pass runs, every caller waits for the one pass queued
 * behind it, which starts after their writes committed and so sees them. A burst of 50 held submissions then makes
 * two passes, not 50 transactions queued on the account's admission row lock.
 */
export function admitDue(deps: Deps, accountId: string): Promise<void> {
  let byAccount = passes.get(deps.db);
  if (!byAccount) passes.set(deps.db, (byAccount = new Map()));
  const current = byAccount.get(accountId);
  if (current) return (current.next ??= current.running.then(() => startPass()));
  return startPass();

  function startPass(): Promise<void> {
    const state = { running: admissionPass(deps, accountId), next: null as Promise<void> | null };
    byAccount!.set(accountId, state);
    return state.running.finally(() => {
      if (byAccount!.get(accountId) === state && !state.next) byAccount!.delete(accountId);
    });
  }
}

async function admissionPass(deps: Deps, accountId: string, lookAgain = LOOK_AGAIN_MS): Promise<void> {
  try {
    if (!(await admissionDue(deps.db, accountId, deps.config.ACCOUNT_RUNS_IN_FLIGHT_CONTENDED))) return;
    await enqueueAdmitted(deps, await admitHeld(deps, accountId));
    // A held run another transaction had locked (a cancel, a resume that lost its race) was skipped: look again
    // shortly, rather than leave it to the sweep's minute. Not waited for; the sweep still covers a crash.
    const [next, ...later] = lookAgain;
    if (next !== undefined && (await admissionDue(deps.db, accountId, deps.config.ACCOUNT_RUNS_IN_FLIGHT_CONTENDED)))
      setTimeout(() => void admissionPass(deps, accountId, later), next).unref();
  } catch (err) {
    deps.log.warn({ accountId, err: (err as Error).message }, 'admission failed; the admission sweep will admit');
  }
}

/**
 * Admits into the account's free places its held runs, oldest first, in one transaction under its admission row's
 * lock (two finalizers never admit the same run or fill the same place), and publishes their `run.admitted` events.
 */
async function admitHeld(deps: Deps, accountId: string): Promise<AdmittedRun[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      const admitted = await deps.db.transaction(async (trx) => {
        const row = await lockAdmissions(trx, accountId);
        if (!row) return [];
        return admitFromHold(trx, accountId, { cap: row.cap, contended: deps.config.ACCOUNT_RUNS_IN_FLIGHT_CONTENDED });
      });
      for (const a of admitted)
        announce(deps, a.id, [{ id: a.seq, runId: a.id, type: 'trace', at: iso(a.created_at)!, ...a.data }], accountId);
      return admitted;
    } catch (err) {
      if (attempt < ADMIT_TRIES && isRace(err)) continue;
      throw err;
    }
  }
}

/** A place taken under the admission by a racing submission (unique violation), or a deadlock Postgres broke. */
const isRace = (err: unknown) => ['23505', '40P01'].includes((err as { code?: string }).code ?? '');

/**
 * Enqueues admitted runs in order: a first segment from its first step, a resumed one from the step that waited.
 * Each starts a trace of its own, linked to the span that admitted it: that span belongs to another run (the one
 * whose finalize freed the place) or to a sweep, and the admitted run's steps must not join its trace.
 */
async function enqueueAdmitted(deps: Deps, runs: AdmittedRun[]): Promise<void> {
  for (const a of runs)
    await inSpan('admit run', { root: true, links: linkToActive(), attributes: { 'awp.run.id': a.id } }, () =>
      enqueueOrLeaveToSweep(deps, a.id, () =>
        enqueueSegment(deps, a.id, a.segment, a.route, a.resume?.stepIndex ?? 0, a.resume?.id),
      ),
    );
}

/**
 * The clock's safety net (`runs.admit`, every minute): admissions a finalizer missed (it crashed after its write, or
 * Postgres was away) are made here. Each account that holds runs, least recently admitted first, has its free places
 * filled; the admitted runs are enqueued round-robin across accounts, so no account's
 * admissions queue behind another's.
 */
export async function sweepAdmissions(deps: Deps): Promise<{ accounts: number; admitted: number }> {
  const accounts = await accountsHolding(deps.db, SWEEP_ACCOUNTS);
  const lists: AdmittedRun[][] = [];
  for (const accountId of accounts) {
    try {
      lists.push(await admitHeld(deps, accountId));
    } catch (err) {
      deps.log.warn({ accountId, err: (err as Error).message }, 'admission sweep: account skipped');
    }
  }
  const order = roundRobin(lists);
  await enqueueAdmitted(deps, order);
  return { accounts: accounts.length, admitted: order.length };
}

/** The first of each list, then the second of each, and so on. */
export function roundRobin<T>(lists: T[][]): T[] {
  const out: T[] = [];
  for (let i = 0; lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) out.push(l[i]!);
  return out;
}

/** Why a queued run has not started and where it stands, for GET /v1/runs/{runId}; null when it is not held. */
export async function runHold(db: Db, run: Pick<RunRow, 'id' | 'status' | 'held_at'>) {
  if (!run.held_at || run.status !== 'queued') return null;
  const hold = await holdOf(db, run.id);
  return hold && holdView(hold);
}

/** A hold as the API shows it (RunHold). */
export function holdView(hold: HoldState) {
  return {
    reason:
      `held: the account's ${hold.inFlightLimit} places for runs in flight are taken (${hold.inFlight} in flight); ` +
      'its held runs start in submission order as its runs come to rest',
    position: hold.position,
    inFlight: hold.inFlight,
    inFlightLimit: hold.inFlightLimit,
    heldAt: iso(hold.heldAt)!,
  };
}
