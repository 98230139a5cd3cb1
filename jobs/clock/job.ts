import { UnrecoverableError, type Job } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import { sweeps } from './sweeps.js';

/** Runs the sweep a clock tick named. */
export async function processClockJob(job: Job, deps: Deps): Promise<unknown> {
  const sweep = sweeps()[job.name];
  if (!sweep) throw new UnrecoverableError(`unknown sweep ${job.name}`);
  return sweep.run(deps);
}
