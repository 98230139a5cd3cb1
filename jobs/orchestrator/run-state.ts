import type { Db } from '../../shared/db/knex.js';
import { moveRunStatus } from '../../shared/db/run-writes.js';
import { CORE_WAIT_KINDS } from '../../shared/schemas/run-data.js';
import { DOMAIN_STATUSES } from '../../shared/domain-names.js';
import type { DomainModule } from '../domain.js';
import { domainModule } from '../module-registry.js';
import { defineMachine } from '../state-machine.js';

/** What a run's final status means for its task and its `run.*` event. */
export type RunOutcome = 'succeeded' | 'failed' | 'canceled';

export const ACTIVE_STATUSES = ['queued', 'running'] as const;

/** Statuses a run rests at until a waitpoint is resolved. */
export const WAIT_STATUSES: string[] = [...new Set([...CORE_WAIT_KINDS, ...DOMAIN_STATUSES.resting])];

/** Final statuses and what each means: the core three, then each module's own (`delivered`, `blocked`). */
export const FINAL_OUTCOMES: Record<string, RunOutcome> = {
  // expired: an approval or answer that never came fails closed (jobs/orchestrator/waitpoint-expiry.ts).
  ready: 'succeeded',
  failed: 'failed',
  canceled: 'canceled',
  expired: 'failed',
  ...DOMAIN_STATUSES.final,
};
export const TERMINAL_STATUSES: string[] = Object.keys(FINAL_OUTCOMES);
/** A resting run is not moving: it is final, or waits for an answer. */
export const RESTING_STATUSES: string[] = [...TERMINAL_STATUSES, ...WAIT_STATUSES];
export const RUN_STATUSES: string[] = [...ACTIVE_STATUSES, ...RESTING_STATUSES];

/**
 * The run state machine. A run is queued, runs its segment's steps, then
 * rests: final, or at a waitpoint until an answer queues the next segment.
 * Cancel and failure are reachable from anything that is not final.
 */
export const RUNS = defineMachine<Record<string, string[]>>({
  queued: ['running', ...RESTING_STATUSES],
  running: RESTING_STATUSES,
  ...Object.fromEntries(WAIT_STATUSES.map((w) => [w, ['queued', 'canceled', 'failed', 'expired']])),
  ...Object.fromEntries(TERMINAL_STATUSES.map((t) => [t, []])),
});

export const isTerminal = RUNS.isTerminal;

/** Statuses a run may be in to move to `to` (the guard of the UPDATE). */
export function movesInto(to: string): string[] {
  return RUNS.statuses.filter((from) => RUNS.canMove(from, to));
}

/**
 * Whether a step of `domain` may suspend its run at `kind`: a core wait kind, or a resting status its module declares.
 */
export function canRestAt(domain: string, kind: string): boolean {
  return (
    (CORE_WAIT_KINDS as readonly string[]).includes(kind) ||
    (domainModule(domain)?.statuses?.resting ?? []).includes(kind)
  );
}

/** The outbox event type of a run that came to rest at `status`. */
export function runEventType(status: string): 'run.completed' | 'run.failed' | 'run.canceled' | 'run.waiting' {
  const outcome = FINAL_OUTCOMES[status];
  return outcome === 'succeeded'
    ? 'run.completed'
    : outcome === 'failed'
      ? 'run.failed'
      : outcome === 'canceled'
        ? 'run.canceled'
        : 'run.waiting';
}

/**
 * A final status a domain may end the run with, else null (the step asked for a status its module does not declare).
 */
export function domainFinalStatus(module: DomainModule | undefined, status: string | undefined): string | null {
  return status && module?.statuses?.final?.[status] ? status : null;
}

/**
 * Moves a run to `to` if the table allows it from its current status: the
 * one writer of runs.status besides the insert and the hot step-start
 * statement. False when the move did not apply (the run had moved on).
 */
export function moveRun(db: Db, runId: string, to: string, fields: Record<string, unknown> = {}): Promise<boolean> {
  return moveRunStatus(db, runId, movesInto(to), to, isTerminal(to), fields);
}
