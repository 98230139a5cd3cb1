import type { Deps } from '../../shared/deps.js';
import { finishStep } from '../../shared/db/run-writes.js';
import { inRunTx } from './run-events.js';
import { moveRun } from './run-state.js';

/**
 * Fails a run, and the step that failed it: the one way a run fails. Writes
 * the reason (clients read it: it names client-facing errors only) and a
 * `run.failed` trace in one transaction; a run already over is left alone.
 */
export async function failRun(
  deps: Pick<Deps, 'db' | 'bus'>,
  runId: string,
  accountId: string,
  reason: string,
  opts: { stepId?: string; stuck?: boolean } = {},
) {
  const error = reason.slice(0, 2000);
  await inRunTx(deps, runId, accountId, async (trx, emit) => {
    if (opts.stepId) await finishStep(trx, opts.stepId, 'failed', error);
    const moved = await moveRun(trx, runId, 'failed', { error, ...(opts.stuck ? { stuck_reason: error } : {}) });
    if (moved) emit('trace', { event: opts.stuck ? 'run.stuck' : 'run.failed', reason });
  });
  return { status: 'failed', reason };
}
