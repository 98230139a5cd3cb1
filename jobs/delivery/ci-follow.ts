import type { Job } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import { DELIVERY_CI_QUEUE } from '../../shared/queues.js';
import { AppError, conflict } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import {
  findDispatchedRun,
  getAction,
  githubClient,
  providerContextFor,
  workflowRunNow,
  type FailedJob,
} from '../bridge/index.js';
import { enqueueResumed, inRunTx, resolveRunWaitpoint, type ResumedRun } from '../orchestrator/index.js';
import type { CiTarget } from './ci-logic.js';
import {
  ciRunOf,
  claimDueCiRuns,
  followRerun,
  getCiRun,
  insertCiRun,
  markCiResumed,
  noteCiCheck,
  type CiRunRow,
} from './ci-repository.js';
import { dispatchDeploy } from './stage-inputs.js';

/**
 * A delivery's deploy through GitHub Actions, followed durably. The deploy step sends the `workflow_dispatch` as a
 * bridge action (capability `ci.trigger`, id derived from the run: the correlation id the workflow shows in its run
 * name), writes a `delivery_ci_runs` row and rests the run at `awaitingCi`; no worker waits. The `delivery.ci` sweep
 * (every minute on the clock) reads each row not yet resumed: the dispatch action's outcome, the workflow run it
 * started (found by correlation id), then the run's state; once the run has completed it resolves the waitpoint
 * with the outcome (conclusion, failed jobs with log excerpts) and queues the run's next segment, in one transaction
 * with the row marked resumed. A crash anywhere loses nothing: the row is there, and the next sweep reads GitHub
 * again. A run not yet at rest when its CI run ends (409) is resumed by the next sweep.
 *
 * The sweep is the safety net; the fast follow is what makes a run learn its outcome in seconds: a delayed job on
 * the `delivery-ci` queue checks the follow FAST_FIRST_MS after the dispatch (and after a re-run), then again with
 * the delay doubled up to FAST_MAX_MS, FAST_CHECKS times in all; after that the minute sweep alone goes on. Both
 * call `checkCiRun`, whose resume is one transaction that resolves the waitpoint only while the run rests on it, so
 * however they interleave the run is resumed once (the other gets 409 and stops, or finds the row resumed).
 */
const FAST_FIRST_MS = 3_000;
const FAST_MAX_MS = 60_000;
const FAST_CHECKS = 10;

/** The outcome a resumed deploy step reads (`resume.data.ci`). */
export interface CiOutcome {
  state: 'succeeded' | 'failed';
  runId: number | null;
  htmlUrl: string | null;
  attempt: number;
  conclusion: string | null;
  failedJobs: FailedJob[];
  /** Why the run could not be started or followed (a refused dispatch, a workflow GitHub does not know). */
  error?: string;
}

/** A dispatch whose workflow run is not found within this long failed to start (or ran without the correlation). */
const FIND_WITHIN_MS = 10 * 60_000;
/** A run not completed within this long is given up on (GitHub cancels a job after 6 hours, a run after 35 days). */
const FOLLOW_WITHIN_MS = 24 * 3_600_000;
const BATCH = 50;
const MIN_AGE_SECONDS = 10;

const SETTLED_BAD = new Set(['failed', 'timedOut', 'canceled']);

/** Sends the dispatch (once per run) and writes the follow; `refused` when the bridge's checks refused it. */
export async function startCiDeploy(
  deps: Deps,
  actor: Principal,
  runId: string,
  connectorId: string,
  target: CiTarget,
): Promise<{ actionId: string } | { refused: string }> {
  const sent = await dispatchDeploy(deps, actor, runId, connectorId, {
    repo: `${target.owner}/${target.repo}`,
    workflow: target.workflow,
    ref: target.ref,
    inputs: target.inputs,
  });
  if ('refused' in sent) return sent;
  await insertCiRun(deps.db, {
    run_id: runId,
    account_id: actor.accountId,
    connector_id: connectorId,
    owner: target.owner,
    repo: target.repo,
    workflow: target.workflow,
    ref: target.ref,
    action_id: sent.actionId,
  });
  await scheduleCiCheck(deps, runId, 1, 0);
  return sent;
}

/** Asks GitHub (as a bridge action, capability `ci.rerun`) to re-run the failed jobs, and follows the next attempt. */
export async function startRerun(
  deps: Deps,
  actor: Principal,
  runId: string,
): Promise<{ actionId: string } | { refused: string }> {
  const row = await getCiRun(deps.db, actor.accountId, runId);
  if (!row?.gh_run_id) return { refused: 'no workflow run to re-run' };
  const attempt = row.attempt + 1;
  const sent = await dispatchDeploy(
    deps,
    actor,
    runId,
    row.connector_id,
    { repo: `${row.owner}/${row.repo}`, runId: Number(row.gh_run_id) },
    { capability: 'ci.rerun', id: `bac_${runId.replace(/^run_/, '')}_r${attempt}` },
  );
  if ('actionId' in sent && row.rerun_action_id !== sent.actionId) {
    await followRerun(deps.db, runId, sent.actionId, attempt);
    await scheduleCiCheck(deps, runId, attempt, 0);
  }
  return sent;
}

/** Resolves the run's `awaitingCi` waitpoint with the outcome, once; false while the run is not at rest there. */
async function resumeWith(deps: Deps, row: CiRunRow, ci: CiOutcome): Promise<boolean> {
  let resumed: ResumedRun | null = null;
  try {
    resumed = await inRunTx(deps, row.run_id, row.account_id, async (trx, emit) => {
      const done = await resolveRunWaitpoint(trx, emit, row.account_id, row.run_id, (r, wp) => {
        if (wp.domain !== 'delivery' || wp.kind !== 'awaitingCi')
          throw conflict(`Run ${row.run_id} waits on something else than its CI run`);
        return { resolution: { ci }, route: r.route };
      });
      await markCiResumed(trx, row.run_id);
      return done;
    });
  } catch (err) {
    if (err instanceof AppError && (err.status === 409 || err.status === 404)) return false;
    throw err;
  }
  await enqueueResumed(deps, row.run_id, resumed);
  return true;
}

const failedOutcome = (row: CiRunRow, error: string): CiOutcome => ({
  state: 'failed',
  runId: row.gh_run_id ? Number(row.gh_run_id) : null,
  htmlUrl: row.html_url,
  attempt: row.attempt,
  conclusion: null,
  failedJobs: [],
  error,
});

/** One look at a follow: the dispatch (or re-run) action, the workflow run, its state; resumes the run when done. */
export async function checkCiRun(deps: Deps, row: CiRunRow): Promise<'waiting' | 'resumed' | 'notAtRest'> {
  const age = Date.now() - row.created_at.getTime();
  const pending = row.rerun_action_id ?? row.action_id;
  const action = await getAction(deps.db, row.account_id, pending);
  if (!action)
    return (await resumeWith(deps, row, failedOutcome(row, `bridge action ${pending} is gone`)))
      ? 'resumed'
      : 'notAtRest';
  if (SETTLED_BAD.has(action.status)) {
    const said = (action.error as { message?: string } | null)?.message ?? action.status;
    const what = row.rerun_action_id ? 'the re-run' : 'the dispatch';
    return (await resumeWith(deps, row, failedOutcome(row, `${what} was refused: ${said}`))) ? 'resumed' : 'notAtRest';
  }
  if (action.status !== 'succeeded') {
    await noteCiCheck(deps.db, row.run_id, {});
    return 'waiting';
  }
  const got = await providerContextFor(deps, row.account_id, row.connector_id, 'github', 'delivery.ci');
  if ('error' in got)
    return (await resumeWith(deps, row, failedOutcome(row, got.error.message))) ? 'resumed' : 'notAtRest';
  let ghRunId = row.gh_run_id ? Number(row.gh_run_id) : null;
  if (!ghRunId) {
    const answer = ((action.response as { body?: Record<string, unknown> } | null)?.body ?? {}) as Record<string, any>;
    ghRunId = typeof answer.runId === 'number' ? answer.runId : null;
    if (!ghRunId) {
      const found = await findDispatchedRun(await githubClient(got.ctx), {
        owner: row.owner,
        repo: row.repo,
        workflow: row.workflow,
        ref: row.ref,
        correlationId: row.action_id,
        dispatchedAt: Date.parse(String(answer.dispatchedAt)) || row.created_at.getTime(),
      }).catch(() => null);
      ghRunId = found?.runId ?? null;
    }
    if (!ghRunId) {
      if (age > FIND_WITHIN_MS)
        return (await resumeWith(deps, row, failedOutcome(row, 'no workflow run carrying the correlation id appeared')))
          ? 'resumed'
          : 'notAtRest';
      await noteCiCheck(deps.db, row.run_id, { status: 'dispatched' });
      return 'waiting';
    }
    await noteCiCheck(deps.db, row.run_id, { gh_run_id: String(ghRunId), status: 'queued' });
    row = { ...row, gh_run_id: String(ghRunId) };
  }
  const state = await workflowRunNow(got.ctx, { owner: row.owner, repo: row.repo, runId: ghRunId });
  if ('error' in state) {
    if (!state.error.transient)
      return (await resumeWith(deps, row, failedOutcome(row, state.error.message))) ? 'resumed' : 'notAtRest';
    await noteCiCheck(deps.db, row.run_id, {});
    return 'waiting';
  }
  // After a re-run the run reads completed (the last attempt) until GitHub has queued the next one.
  const current = state.status === 'completed' && state.attempt >= row.attempt;
  if (!current) {
    if (age > FOLLOW_WITHIN_MS)
      return (await resumeWith(deps, row, failedOutcome(row, 'the workflow run did not complete within a day')))
        ? 'resumed'
        : 'notAtRest';
    await noteCiCheck(deps.db, row.run_id, { status: state.status, html_url: state.htmlUrl });
    return 'waiting';
  }
  await noteCiCheck(deps.db, row.run_id, {
    status: 'completed',
    conclusion: state.conclusion,
    html_url: state.htmlUrl,
    failed_jobs: state.failedJobs,
  });
  const outcome: CiOutcome = {
    state: state.conclusion === 'success' ? 'succeeded' : 'failed',
    runId: state.runId,
    htmlUrl: state.htmlUrl,
    attempt: state.attempt,
    conclusion: state.conclusion,
    failedJobs: state.failedJobs,
  };
  return (await resumeWith(deps, row, outcome)) ? 'resumed' : 'notAtRest';
}

/** The `delivery.ci` sweep: each follow not checked for `minAgeSeconds`, claimed by moving its `checked_at`. */
export async function followCiRuns(
  deps: Deps,
  opts: { minAgeSeconds?: number } = {},
): Promise<{ checked: number; resumed: number }> {
  const rows = await claimDueCiRuns(deps.db, opts.minAgeSeconds ?? MIN_AGE_SECONDS, BATCH);
  let resumed = 0;
  for (const row of rows) {
    try {
      if ((await checkCiRun(deps, row)) === 'resumed') resumed++;
    } catch (err) {
      deps.log.warn({ runId: row.run_id, err: (err as Error).message }, 'following a CI run failed; next sweep');
    }
  }
  return { checked: rows.length, resumed };
}

/** Queues the `n`th fast check of a follow (ids per attempt and check: a step retried adds nothing). */
export async function scheduleCiCheck(deps: Pick<Deps, 'queues' | 'log'>, runId: string, attempt: number, n: number) {
  if (n >= FAST_CHECKS) return;
  const delay = Math.min(FAST_FIRST_MS * 2 ** n, FAST_MAX_MS);
  await deps.queues
    .queue(DELIVERY_CI_QUEUE)
    .add('check', { runId, attempt, n }, { jobId: `${runId}.a${attempt}.${n}`, delay, removeOnComplete: true })
    .catch((err: Error) => deps.log.warn({ runId, err: err.message }, 'fast CI check not queued; the sweep follows'));
}

/** The `delivery-ci` job: one look at the follow; the next look is queued unless the run was resumed. */
export async function processCiCheck(job: Job, deps: Deps): Promise<string> {
  const { runId, attempt, n } = job.data as { runId: string; attempt: number; n: number };
  const row = await ciRunOf(deps.db, runId);
  if (!row || row.resumed_at || row.attempt !== attempt) return 'done';
  let seen: string;
  try {
    seen = await checkCiRun(deps, row);
  } catch (err) {
    deps.log.warn({ runId, err: (err as Error).message }, 'fast CI check failed; checked again');
    seen = 'error';
  }
  if (seen !== 'resumed') await scheduleCiCheck(deps, runId, attempt, n + 1);
  return seen;
}
