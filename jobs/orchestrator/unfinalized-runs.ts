import type { Deps } from '../../shared/deps.js';
import { unfinalizedRuns } from '../../shared/db/unfinalized-runs.js';
import { finalizeSegment } from './finalize.js';

/** A run that ended a minute ago has had its finalizer; past that, its job is gone. */
const GRACE_SEC = 60;
const BATCH = 200;

/**
 * The clock's `runs.unfinalized` sweep: a run canceled (or failed) in flight whose job Redis lost never gets the
 * finalizer that writes its `final` event, proof card and task state; its cancel answered 200 and it rests
 * `canceled`, but a follower waiting for `final` would wait for good. Each is finalized here (idempotent: a segment
 * that has its `final` is left alone), all of them, a batch at a time.
 */
export async function sweepUnfinalizedRuns(deps: Deps): Promise<{ finalized: number }> {
  let finalized = 0;
  for (;;) {
    const ids = await unfinalizedRuns(deps.db, GRACE_SEC, BATCH);
    let moved = 0;
    for (const id of ids) {
      try {
        if (!('skipped' in (await finalizeSegment(deps, id)))) moved++;
      } catch (err) {
        deps.log.warn({ runId: id, err: (err as Error).message }, 'unfinalized run: finalize failed; next sweep');
      }
    }
    finalized += moved;
    // A full batch that moved nothing would come back the same: the next sweep tries again.
    if (ids.length < BATCH || moved === 0) return { finalized };
  }
}
