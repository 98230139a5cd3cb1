import type { JobsOptions } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import { PAY_PROVIDER_QUEUE } from '../../shared/queues.js';

/** The jobs of the pay-provider queue: one per receipt to confirm, one per refund to send; their ids are fixed. */

const OPTIONS: JobsOptions = {
  attempts: 6,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: 1000,
};
const jobIdOf = (name: 'confirm' | 'refund', id: string) => `${name}.${id}`;

/** Puts the receipt's confirm job on the queue (a second add of the same id adds nothing). */
export async function enqueueConfirm(deps: Pick<Deps, 'queues'>, receiptId: string): Promise<void> {
  await deps.queues
    .queue(PAY_PROVIDER_QUEUE)
    .add('confirm', { receiptId }, { ...OPTIONS, jobId: jobIdOf('confirm', receiptId) });
}

export async function enqueueRefund(deps: Pick<Deps, 'queues'>, refundId: string): Promise<void> {
  await deps.queues
    .queue(PAY_PROVIDER_QUEUE)
    .add('refund', { refundId }, { ...OPTIONS, jobId: jobIdOf('refund', refundId) });
}

const LIVE = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

/** Adds the job when Redis has none under its id, or only a spent one (failed after its attempts). */
export async function putBack(deps: Pick<Deps, 'queues'>, name: 'confirm' | 'refund', id: string): Promise<boolean> {
  const queue = deps.queues.queue(PAY_PROVIDER_QUEUE);
  const jobId = jobIdOf(name, id);
  const state = await queue.getJobState(jobId);
  if (LIVE.has(state)) return false;
  if (state !== 'unknown') await queue.remove(jobId);
  if (name === 'confirm') await enqueueConfirm(deps, id);
  else await enqueueRefund(deps, id);
  return true;
}
