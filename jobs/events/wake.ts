import type { Deps } from '../../shared/deps.js';

/**
 * Wakes the dispatcher now or after `delayMs`. Wake-ups for the same second
 * coalesce into one job; one that coalesces into a dispatch already running
 * is covered by that run, which re-checks what is due before it ends, and
 * in the worst case by the clock's pump a minute later. Its own file so the
 * subscription service (which the ledger imports) can wake it too.
 */
export async function wakeDispatcher(deps: Pick<Deps, 'queues' | 'log'>, delayMs = 0): Promise<void> {
  const due = Date.now() + Math.max(0, delayMs);
  await deps.queues
    .queue('webhooks')
    .add(
      'dispatch',
      {},
      {
        delay: Math.max(0, delayMs),
        jobId: `dispatch.${Math.ceil(due / 1000)}`,
        removeOnComplete: true,
        removeOnFail: 100,
      },
    )
    .catch((err: Error) => deps.log.warn({ err: err.message }, 'dispatcher wake-up not enqueued; the clock will pump'));
}
