import { UnrecoverableError, type Job } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import { AppError, isPermanent } from '../../shared/errors.js';
import { getRunById } from '../../shared/db/runs.js';
import { answerApproves } from '../approval-gates.js';
import { beginStep, heartbeatStep, noteStepError, type BegunStep } from '../../shared/db/run-steps.js';
import { redactSecrets } from '../../shared/secrets.js';
import { isTransientInfraError } from '../../shared/transient.js';
import { StepJobData } from '../../shared/schemas/run-data.js';
import { readAs } from '../../shared/validation.js';
import { RunInput, WaitpointResolution } from './schemas.js';
import { readJob } from './read-job.js';
import { stepHandler } from '../steps.js';
import type { StepInput, StepOutcome } from '../step.js';
import { CancelError, trackRun } from './cancel-registry.js';
import { StepStream } from './step-stream.js';
import { stepDuration } from '../metrics.js';
import { stepRowId } from './flow.js';
import { announce, emitRunEvent } from './run-events.js';
import { failRun } from './run-fail.js';
import { isTerminal } from './run-state.js';
import { finishStep } from '../../shared/db/run-writes.js';
import { finalizeSegment } from './finalize.js';
import { completeStep } from './step-complete.js';

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
 * Generic processor of a domain step: load by id → domain handler → persist
 * idempotently → handoff. A re-run after a crash finds the completed row and
 * returns its handoff without running the domain again. The segment's last
 * step (the root of its flow) then finalizes the segment, whatever happened
 * to the steps before it.
 */
export async function processStep(job: Job<StepJobData>, deps: Deps): Promise<unknown> {
  const data = readJob(StepJobData, job.data, 'step job data');
  // Every line this job logs names its run, job and step; what its domain handler logs names the account too.
  const log = deps.log.child({ runId: data.runId, jobId: job.id, domain: data.domain });
  const timer = stepDuration.startTimer({ domain: data.domain });
  let outcome: Record<string, unknown>;
  try {
    outcome = await runStep(job, data, { ...deps, log });
  } catch (err) {
    timer({ result: 'error' });
    throw err;
  }
  timer({ result: stepResult(outcome) });
  if (!data.finalizes) return outcome;
  return { ...outcome, final: await finalizeSegment(deps, data.runId, data.segment) };
}

/** How a step job ended, for its duration metric. */
function stepResult(outcome: Record<string, unknown>): string {
  if (outcome.skipped || outcome.replayed) return 'skipped';
  if (outcome.suspended) return 'suspended';
  return typeof outcome.status === 'string' ? outcome.status : 'completed';
}

async function runStep(job: Job<StepJobData>, data: StepJobData, deps: Deps): Promise<Record<string, unknown>> {
  const { runId, segment, index, domain } = data;
  const stepId = stepRowId(data);
  const handler = stepHandler(domain);
  if (!handler) {
    const run = await getRunById(deps.db, runId);
    return run
      ? failRun(deps, runId, run.account_id, `domain ${domain} is not available`, { stepId })
      : { skipped: 'run not found' };
  }
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
  if (!begun) return { skipped: 'run not found' };
  const { run, started } = begun;
  if (run.segment !== segment || isTerminal(run.status)) return { skipped: run.status };
  if (run.waiting) return { skipped: 'run is waiting' };
  if (run.step_status === 'completed') return { domain, status: 'completed', replayed: true };
  // The step before this one failed for good (its job gave up without holding this one): the run ends here.
  if (!first && run.prev_status !== 'completed')
    return failRun(deps, run.id, run.account_id, `the ${run.route[index - 1] ?? 'previous'} step did not complete`);
  // Only a run still queued or running in this segment starts a step: a cancel or a newer segment is never undone.
  if (!started) return { skipped: 'run moved on' };
  announce(deps, runId, [
    { id: started.seq, runId, type: 'handoff', at: started.created_at.toISOString(), ...started.data },
  ]);

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
      job.data,
      run.account_id,
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

/**
 * A step resumed by an approval cites who gave it, so the proof card says who approved (jobs/approvals/authorize.ts).
 */
function withApprover(outcome: StepOutcome, wp: BegunStep['resumeWaitpoint']): StepOutcome {
  const by = wp?.resolution?.approvedBy;
  if (typeof by !== 'string') return outcome;
  const verb = answerApproves(wp!.resolution as { approved?: boolean; action?: string }) ? 'approved' : 'refused';
  const claim = `${String(wp!.resolution!.gate ?? 'approval')} gate ${verb} by member ${by}`;
  return { ...outcome, evidence: [...outcome.evidence, { claim, source: `approval:${wp!.id}`, sourceBound: true }] };
}

function stepInput(
  data: StepJobData,
  { run, prior: done, resumeWaitpoint: wp }: BegunStep,
  signal: AbortSignal,
  emit: StepInput['emit'],
): StepInput {
  const prior: StepInput['prior'] = {};
  // In route order, so a later segment's output of a domain wins over an earlier one's.
  for (const s of done) if (!(s.segment === data.segment && s.idx >= data.index)) prior[s.domain] = s.output;
  let resume: StepInput['resume'];
  if (wp) {
    const resolution = readAs(WaitpointResolution, wp.resolution ?? {}, `resolution of waitpoint ${wp.id}`);
    // What the waitpoint stored (the choices offered) and the validated answer win over the client's free-form data.
    const { itemId, action, approved, ...clientData } = resolution;
    resume = {
      waitpointId: wp.id,
      kind: wp.kind,
      action,
      itemId,
      data: { ...clientData, ...wp.payload, itemId, action, approved },
    };
  }
  const { metadata, ...extras } = readAs(RunInput, run.input, `input of run ${run.id}`);
  const clause = (run.routing as { clauses?: Record<string, string> }).clauses?.[data.domain] ?? run.request;
  return {
    runId: run.id,
    accountId: run.account_id,
    domain: data.domain,
    segment: data.segment,
    index: data.index,
    request: run.request,
    clause,
    metadata: metadata ?? {},
    prior,
    resume,
    extras,
    signal,
    emit,
  };
}
