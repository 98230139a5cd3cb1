import type { Knex } from 'knex';
import type { Deps } from '../../shared/deps.js';
import { conflict, notFound } from '../../shared/errors.js';
import type { RunRow } from '../../shared/db/runs.js';
import type { WaitpointRow } from '../../shared/db/run-steps.js';
import { lockOpenWaitpoint, lockRun, queueNextSegment, resolveWaitpoint } from '../../shared/db/run-writes.js';
import { holdResumed } from '../../shared/db/admissions.js';
import { enqueueOrLeaveToSweep, enqueueSegment } from './flow.js';
import { admitDue } from './admission.js';
import type { Emit } from './run-events.js';

/*
 * The waitpoint-resolving half of a resume, in the caller's transaction. It
 * knows nothing of the domain list on purpose: a domain that resolves its own
 * waitpoints from a record of its own (a proxy mission's outcome) calls it in
 * the transaction that writes that record, and a domain module may not import
 * what imports the domain list (jobs/domains.ts → the module → here would be
 * a cycle). What depends on the domains (accepted actions, route extensions)
 * is the caller's `decide`.
 */

export interface RouteExtension {
  after: string;
  action: string;
  /** The domain added after the waiting step, or null when it could not be (the reason says why). */
  added: string | null;
  reason: string;
}

/** How an answer resolves the waitpoint, decided by the caller from the run and waitpoint read under lock. */
export interface WaitpointDecision {
  /** Stored as the waitpoint's resolution; the resumed step reads it (merged under the waitpoint's payload). */
  resolution: Record<string, unknown>;
  action?: string;
  itemId?: string;
  /** The route of the next segment: the run's own, or longer when the action continues into another domain. */
  route: string[];
  extension?: RouteExtension;
}

export interface ResumedRun {
  wp: WaitpointRow;
  segment: number;
  route: string[];
  run: RunRow;
}

/**
 * Resolves the run's open waitpoint exactly once and queues the next
 * segment, from the waiting step on, in `trx`. Decided under the run's row
 * lock (then the waitpoint's), so a concurrent resume, cancel or finalize of
 * the run waits and then sees what this one did: a second resolve is 409.
 * `decide` may refuse the answer by throwing. The caller enqueues the
 * segment after commit (`enqueueResumed`).
 */
export async function resolveRunWaitpoint(
  trx: Knex.Transaction,
  emit: Emit,
  accountId: string,
  runId: string,
  decide: (run: RunRow, wp: WaitpointRow) => WaitpointDecision | Promise<WaitpointDecision>,
): Promise<ResumedRun> {
  const locked = await lockRun(trx, accountId, runId);
  if (!locked) throw notFound(`Run ${runId}`);
  const wp = await lockOpenWaitpoint(trx, runId);
  // A run resting at a waitpoint has the waitpoint's kind as its status (segment-end.ts). One whose
  // waitpoint is written but whose segment has not ended yet is still running: it is not waiting yet.
  if (!wp || wp.segment !== locked.segment || locked.status !== wp.kind) {
    throw conflict(`Run ${runId} is not waiting for input (status ${locked.status}); a waitpoint resolves once`);
  }
  const decision = await decide(locked, wp);
  await resolveWaitpoint(trx, wp.id, decision.resolution);
  const segment = locked.segment + 1;
  const routing = decision.extension
    ? {
        ...locked.routing,
        extensions: [...((locked.routing.extensions as unknown[]) ?? []), { segment, ...decision.extension }],
      }
    : locked.routing;
  // Every waiting status moves to queued in the run machine (run-state.ts); the guard is the one the run rests at, held
  // under the lock. The resumed segment waits for a place among its account's runs in flight like a new run
  // (admission.ts), so answering many waiting runs at once is no way past the limit.
  const held = await holdResumed(trx, accountId);
  const queued = (await queueNextSegment(trx, runId, [locked.status], segment, decision.route, routing, held))!;
  emit('trace', {
    event: 'run.resumed',
    waitpointId: wp.id,
    kind: wp.kind,
    segment,
    itemId: decision.itemId ?? null,
    action: decision.action ?? null,
    ...(decision.extension ? { extension: decision.extension } : {}),
  });
  return { wp, segment, route: decision.route, run: queued };
}

/**
 * Enqueues the segment a committed resume queued, from the step that waited: through admission when it is held (it
 * starts now if its account has a place, else in its turn).
 */
export async function enqueueResumed(deps: Deps, runId: string, resumed: ResumedRun): Promise<void> {
  if (resumed.run.held_at) return admitDue(deps, resumed.run.account_id);
  await enqueueOrLeaveToSweep(deps, runId, () =>
    enqueueSegment(deps, runId, resumed.segment, resumed.route, resumed.wp.step_index, resumed.wp.id),
  );
}
