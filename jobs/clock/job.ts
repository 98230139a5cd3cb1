import { UnrecoverableError, type Job } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import { sweeps, TRIGGERED_SWEEPS } from './sweeps.js';

/** Runs the sweep a clock tick named, or a pass the clock asked for (`requestPass`). */
export async function processClockJob(job: Job, deps: Deps): Promise<unknown> {
  const run = sweeps()[job.name]?.run ?? TRIGGERED_SWEEPS[job.name];
  if (!run) throw new UnrecoverableError(`unknown sweep ${job.name}`);
  return run(deps);
}

/**
 * How long a triggered pass waits before it runs: long enough for every
 * process's own Redis client to have reconnected (ioredis retries at most 2 s
 * apart) and sent what it held while Redis was away (a hand-off enqueued
 * during the outage), so the pass finds those jobs in Redis and leaves their runs alone.
 */
export const PASS_SETTLE_MS = 5_000;

/** Enqueues a triggered pass (`TRIGGERED_SWEEPS`) on the clock queue; its worker runs it PASS_SETTLE_MS later. */
export async function requestPass(deps: Pick<Deps, 'queues'>, name: keyof typeof TRIGGERED_SWEEPS, reason: string) {
  await deps.queues
    .queue('clock')
    .add(
      name,
      { reason },
      { jobId: `${name}.${Date.now()}`, delay: PASS_SETTLE_MS, removeOnComplete: 100, removeOnFail: 100 },
    );
}
