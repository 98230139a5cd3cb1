import { UnrecoverableError, type Job } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import { AppError, isPermanent } from '../../shared/errors.js';
import { getRunById } from '../../shared/db/runs.js';
import { beginStep, heartbeatStep, noteStepError, type BegunStep } from '../../shared/db/run-steps.js';
import { redactSecrets } from '../../shared/secrets.js';
import { isTransientInfraError } from '../../shared/transient.js';
import { StepJobData } from '../../shared/schemas/run-data.js';
import { readJob } from './read-job.js';
import { stepHandler } from '../steps.js';
import type { StepHandler } from '../step.js';
import { stepInput, withApprover } from './step-input.js';
import { CancelError, trackRun } from './cancel-registry.js';
import { StepStream } from './step-stream.js';
import { stepDuration } from '../metrics.js';
import { enqueueStep, stepRowId } from './flow.js';
import { servedHere } from './served-here.js';
import { announce, emitRunEvent } from './run-events.js';
import { failRun } from './run-fail.js';
import { isTerminal } from './run-state.js';
import { finishStep } from '../../shared/db/run-writes.js';
import { finalizeSegment } from './finalize.js';
import { completeStep } from './step-complete.js';
import { inSpan } from '../../shared/telemetry/spans.js';

class StepTimeout extends Error {}

/**
 * Attempts a step gets for its domain's own unexpected errors (an infrastructure outage is retried longer: see
 * flow.ts).
 */
const STEP_ERROR_ATTEMPTS = 3;

function humanElapsed(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * Generic processor of a domain step, and of the steps of its segment that
 * follow where they land: load by id → domain handler → persist idempotently
 * (one checkpoint per step) → the next step. While the next step's domain is
 * served by this process it runs in this job, as DBOS runs a workflow's
 * steps; otherwise the run is handed to that domain's queue (one job with a
 * deterministic id), so per-domain workers scale as they did. A re-run after
 * a crash replays the completed steps from Postgres without running them
 * again and goes on from the first that did not complete. The segment ends
 * (finalizeSegment) after its last step, or as soon as a step suspends, fails,
 * is canceled or finds the run moved on: nothing after it would run anyway.
 */
export async function processStep(job: Job<StepJobData>, deps: Deps): Promise<unknown> {
  let data = readJob(StepJobData, job.data, 'step job data');
  const done: Array<Record<string, unknown>> = [];
  for (;;) {
    // Every line this step logs names its run, job and step; what its domain handler logs names the account too.
    const log = deps.log.child({ runId: data.runId, jobId: job.id, domain: data.domain, index: data.index });
    const timer = stepDuration.startTimer({ domain: data.domain });
    let step: StepRun;
    try {
      step = await traceStep(job, data, () => runStep(job, data, { ...deps, log }));
    } catch (err) {
      timer({ result: 'error' });
      throw err;
    }
    timer({ result: stepResult(step.outcome) });
    done.push(step.outcome);
    const next = step.route && continues(step.outcome) ? nextStep(data, step.route) : null;
    if (next && servedHere(deps.config.QUEUE_PREFIX, next.domain) && stepHandler(next.domain)) {
      data = next;
      continue;
    }
    if (next) {
      await enqueueStep(deps, next);
      return { steps: done, handedTo: next.domain };
    }
    return { steps: done, final: await finalizeSegment(deps, data.runId, data.segment) };
  }
}

/**
 * One span per step (a child of the job's consumer span), named by its domain, with the run, position and attempt;
 * its outcome is added when it ends. The Postgres statements and Redis commands the step makes are its children.
 */
function traceStep(job: Job<StepJobData>, data: StepJobData, run: () => Promise<StepRun>): Promise<StepRun> {
  const attributes = {
    'awp.run.id': data.runId,
    'awp.run.segment': data.segment,
    'awp.step.domain': data.domain,
    'awp.step.index': data.index,
    'awp.step.attempt': job.attemptsMade + 1,
  };
  return inSpan(`step ${data.domain}`, { attributes }, async (span) => {
    const step = await run();
    span?.setAttribute('awp.step.outcome', stepResult(step.outcome));
    return step;
  });
}

/** A step that completed (now, or before a crash) lets the segment go on; anything else ends it. */
const continues = (outcome: Record<string, unknown>) => outcome.status === 'completed' && !outcome.suspended;

/** The segment's step after `data`, or null when `data` was its last. */
function nextStep(data: StepJobData, route: string[]): StepJobData | null {
  const index = data.index + 1;
  if (index >= route.length) return null;
  return {
    runId: data.runId,
    segment: data.segment,
    index,
    domain: route[index]!,
    ...(data.drive ? { drive: data.drive } : {}),
  };
}

/** A step's outcome, and the run's route as the step read it (absent when the step did not begin). */
interface StepRun {
  outcome: Record<string, unknown>;
  route?: string[];
}

/** How a step job ended, for its duration metric. */
function stepResult(outcome: Record<string, unknown>): string {
  if (outcome.skipped || outcome.replayed) return 'skipped';
  if (outcome.suspended) return 'suspended';
  return typeof outcome.status === 'string' ? outcome.status : 'completed';
}

async function runStep(job: Job<StepJobData>, data: StepJobData, deps: Deps): Promise<StepRun> {
  const { runId, domain } = data;
  const stepId = stepRowId(data);
  const handler = stepHandler(domain);
  if (!handler) {
    const run = await getRunById(deps.db, runId);
    return {
      outcome: run
        ? await failRun(deps, runId, run.account_id, `domain ${domain} is not available`, { stepId })
        : { skipped: 'run not found' },
    };
  }
  const begun = await beginAt(deps, data, stepId);
  if ('outcome' in begun) return begun;
  return { outcome: await runBegun(job, data, deps, handler, begun), route: begun.run.route };
}

/** Begins the step (one statement), or answers why it does not run: the run moved on, or the step is done. */
async function beginAt(deps: Deps, data: StepJobData, stepId: string): Promise<BegunStep | StepRun> {
  const { runId, segment, index, domain } = data;
  const first = data.first || index === 0 || Boolean(data.resumeWaitpointId);
  const event = { phase: 'start', name: domain, status: 'running', stepId };
  const begun = await beginStep(deps.db, {
    stepId,
    runId,
    segment,
    index,
    domain,
    first,
    resumeWaitpointId: data.resumeWaitpointId,
    event,
  });
  if (!begun) return { outcome: { skipped: 'run not found' } };
  const { run, started } = begun;
  if (run.segment !== segment || isTerminal(run.status)) return { outcome: { skipped: run.status } };
  if (run.waiting) return { outcome: { skipped: 'run is waiting' } };
  if (run.step_status === 'completed')
    return { outcome: { domain, status: 'completed', replayed: true }, route: run.route };
  // The step before this one failed for good (its job gave up without holding this one): the run ends here.
  if (!first && run.prev_status !== 'completed') {
    const reason = `the ${run.route[index - 1] ?? 'previous'} step did not complete`;
    return { outcome: await failRun(deps, run.id, run.account_id, reason) };
  }
  // Only a run still queued or running in this segment starts a step: a cancel or a newer segment is never undone.
  if (!started) return { outcome: { skipped: 'run moved on' } };
  return begun;
}

/** Runs a begun step's domain handler under its timeout, cancel and progress heartbeat, and stores its outcome. */
async function runBegun(
  job: Job<StepJobData>,
  data: StepJobData,
  deps: Deps,
  handler: StepHandler,
  begun: BegunStep,
): Promise<Record<string, unknown>> {
  const { runId, domain } = data;
  const stepId = stepRowId(data);
  const { run } = begun;
  const started = begun.started!;
  announce(
    deps,
    runId,
    [{ id: started.seq, runId, type: 'handoff', at: started.created_at.toISOString(), ...started.data }],
    run.account_id,
  );

  const controller = new AbortController();
  const untrack = await trackRun(deps, runId, controller);
  const timeout = setTimeout(
    () => controller.abort(new StepTimeout(`${domain} step timed out after ${deps.config.STEP_TIMEOUT_MS} ms`)),
    deps.config.STEP_TIMEOUT_MS,
  );
  const startedAt = Date.now();
  let lastEmit = Date.now();
  const stream = new StepStream(deps, runId, run.account_id);
  const emit = async (message: string, data: Record<string, unknown> = {}) => {
    lastEmit = Date.now();
    stream.push('domainStream', { domain, message, data });
  };
  const quiet = setInterval(
    () => {
      if (Date.now() - lastEmit < deps.config.PROGRESS_QUIET_MS) return;
      lastEmit = Date.now();
      const elapsed = Date.now() - startedAt;
      void emitRunEvent(deps, runId, run.account_id, 'progress', {
        status: 'running',
        elapsedSec: Math.round(elapsed / 1000),
        message: `Still working on ${domain}: ${humanElapsed(elapsed)} so far`,
      }).catch(() => undefined);
      void heartbeatStep(deps.db, stepId).catch(() => undefined);
    },
    Math.min(1000, deps.config.PROGRESS_QUIET_MS / 2),
  );

  try {
    const input = stepInput(data, begun, controller.signal, emit);
    const outcome = await Promise.race([
      handler(input, { ...deps, log: deps.log.child({ accountId: run.account_id }) }),
      new Promise<never>((_, reject) => {
        if (controller.signal.aborted) reject(controller.signal.reason);
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
      }),
    ]);
    return await completeStep(
      deps,
      data,
      run,
      stepId,
      withApprover(outcome, begun.resumeWaitpoint),
      await stream.take(),
    );
  } catch (err) {
    // What the step said before it failed is kept: written now, best effort.
    await stream.flush().catch(() => undefined);
    if (err instanceof CancelError) {
      await finishStep(deps.db, stepId, 'canceled');
      return { domain, status: 'canceled' };
    }
    // An outage (Postgres or Redis away) is waited out over every attempt the job has; the domain's own errors get
    // STEP_ERROR_ATTEMPTS.
    const infra = isTransientInfraError(err);
    const lastAttempt = job.attemptsMade + 1 >= (infra ? (job.opts.attempts ?? 1) : STEP_ERROR_ATTEMPTS);
    if (err instanceof StepTimeout || isPermanent(err) || err instanceof UnrecoverableError || lastAttempt) {
      // Clients read this reason: it names client-facing errors, never internals (those go to the log).
      const known = err instanceof StepTimeout || err instanceof AppError || err instanceof UnrecoverableError;
      if (!known) deps.log.error({ err, runId, stepId }, 'step failed');
      // The reason is stored and shown to clients: mask any resolved secret an upstream error may have quoted.
      return failRun(
        deps,
        runId,
        run.account_id,
        redactSecrets(
          `${domain} step failed: ` +
            `${known ? (err as Error).message : `internal error after ${job.attemptsMade + 1} attempt(s)`}`,
        ),
        { stepId },
      );
    }
    if (!infra) await noteStepError(deps.db, stepId, (err as Error).message);
    throw err; // transient: BullMQ retries with backoff
  } finally {
    clearTimeout(timeout);
    clearInterval(quiet);
    stream.stop();
    untrack();
  }
}
