import type { Deps } from '../../shared/deps.js';
import { closeOpenWaitpoint, lockRun } from '../../shared/db/run-writes.js';
import { admitDue } from './admission.js';
import { conflict, notFound } from '../../shared/errors.js';
import { publishCancel } from './cancel-registry.js';
import { finalizeCanceled } from './finalize.js';
import { inRunTx } from './run-events.js';
import { isTerminal, moveRun, WAIT_STATUSES } from './run-state.js';

/**
 * Cancels a run for its owner: aborts the running step wherever it runs
 * (bus → AbortSignal) and closes an open waitpoint. A run resting at a
 * waitpoint has no flow left to finalize it, so it is finalized here, in a
 * segment of its own; so is a held run (it has no flow yet, and held no
 * place). A run in flight frees its place at once, for the account's next
 * held run.
 */
export async function cancelRun(deps: Deps, accountId: string, runId: string) {
  // Decided under the row lock, so a finalize or resume of the same run either happened before (and is seen) or waits.
  const outcome = await inRunTx(deps, runId, accountId, async (trx, emit) => {
    const locked = await lockRun(trx, accountId, runId);
    if (!locked) throw notFound(`Run ${runId}`);
    if (isTerminal(locked.status)) return { canceled: false as const, status: locked.status };
    const waiting = WAIT_STATUSES.includes(locked.status);
    const held = locked.status === 'queued' && Boolean(locked.held_at);
    await moveRun(trx, runId, 'canceled', {
      error: 'canceled by the client',
      segment: waiting ? locked.segment + 1 : locked.segment,
    });
    await closeOpenWaitpoint(trx, runId, { canceled: true });
    emit('trace', { event: 'run.canceled' });
    return { canceled: true as const, waiting, held };
  });
  if (!outcome.canceled) throw conflict(`Run ${runId} is already ${outcome.status}`);
  await publishCancel(deps, runId);
  if (outcome.waiting || outcome.held) await finalizeCanceled(deps, runId);
  else await admitDue(deps, accountId);
  return { ok: true, runId, status: 'canceled' };
}
