import type { Deps } from '../../shared/deps.js';
import { getRun } from '../../shared/db/runs.js';
import { closeOpenWaitpoint } from '../../shared/db/run-writes.js';
import { conflict, notFound } from '../../shared/errors.js';
import { publishCancel } from './cancel-registry.js';
import { finalizeCanceled } from './finalize.js';
import { inRunTx } from './run-events.js';
import { isTerminal, moveRun, WAIT_STATUSES } from './run-state.js';

/**
 * Cancels a run for its owner: aborts the running step wherever it runs
 * (bus → AbortSignal) and closes an open waitpoint. A run resting at a
 * waitpoint has no flow left to finalize it, so it is finalized here, in a
 * segment of its own.
 */
export async function cancelRun(deps: Deps, accountId: string, runId: string) {
  const run = await getRun(deps.db, accountId, runId);
  if (!run) throw notFound(`Run ${runId}`);
  if (isTerminal(run.status)) throw conflict(`Run ${run.id} is already ${run.status}`);
  const waiting = WAIT_STATUSES.includes(run.status);
  const moved = await inRunTx(deps, run.id, run.account_id, async (trx, emit) => {
    const ok = await moveRun(trx, run.id, 'canceled', { error: 'canceled by the client', segment: waiting ? run.segment + 1 : run.segment });
    if (!ok) return false;
    await closeOpenWaitpoint(trx, run.id, { canceled: true });
    emit('trace', { event: 'run.canceled' });
    return true;
  });
  if (!moved) throw conflict(`Run ${run.id} finished before it could be canceled`);
  await publishCancel(deps, run.id);
  if (waiting) await finalizeCanceled(deps, run.id);
  return { ok: true, runId: run.id, status: 'canceled' };
}
