import { waitForRest } from './follow.js';
import { runLinks } from './views.js';
import type { Deps } from '../../shared/deps.js';
import { currentStatus } from './run-queries.js';
import { holdView, runHold } from './admission.js';
import type { HoldState } from '../../shared/db/admissions.js';
import type { RunRow } from '../../shared/db/runs.js';
import { Reply } from '../../shared/http/route-spec.js';

/**
 * How a submitted run is answered: the result once it rests (within
 * RUN_SYNC_WAIT_MS), else 202 with links; `Prefer: respond-async` skips the wait.
 * `signal` (the request's) ends the wait when the client goes away.
 */
export async function answerRun(
  deps: Deps,
  run: Pick<RunRow, 'id' | 'segment' | 'status' | 'held_at'> & { hold?: HoldState | null },
  prefer: string | undefined,
  signal?: AbortSignal,
): Promise<unknown> {
  const runId = run.id;
  const async = /respond-async/i.test(prefer ?? '');
  // Waiting needs Redis pub/sub; if it is unavailable the run still exists, so answer 202 rather than fail.
  const result = async
    ? null
    : await waitForRest(deps, runId, deps.config.RUN_SYNC_WAIT_MS, run.segment, signal).catch(() => null);
  if (result) return result;
  // An async answer says what the submission wrote (no read); after a sync wait ran out, the run's status now.
  const status = async ? run.status : await currentStatus(deps, runId);
  // A held run says why it has not started and where it stands: as its submission saw it, in an async answer (the
  // position an estimate while other submissions race it; GET /v1/runs/{runId} reads it exactly), else read now.
  const hold = !(run.held_at && status === 'queued')
    ? null
    : async && run.hold
      ? holdView(run.hold)
      : await runHold(deps.db, { ...run, status });
  return new Reply(
    202,
    { ok: true, runId, status, ...(hold ? { hold } : {}), links: runLinks(runId) },
    { Location: runLinks(runId).self, ...(async ? { 'Preference-Applied': 'respond-async' } : {}) },
  );
}
