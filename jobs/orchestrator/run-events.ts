import type { Knex } from 'knex';
import type { Deps } from '../../shared/deps.js';
import { appendEvents, type EventGuard, type RunEvent } from '../../shared/db/runs.js';

export type Emit = (type: string, data: Record<string, unknown>) => void;

/**
 * Sends events Postgres has committed to the run's live followers, without
 * waiting: one Redis connection keeps them in order, and Postgres stays the
 * record (a follower fills any gap from it), so the writer need not hold its
 * step or its answer for the round trip.
 */
export function announce(deps: Pick<Deps, 'bus'>, runId: string, events: RunEvent[]): void {
  deps.bus.publishAll(`run:${runId}`, events).catch(() => undefined);
}

/**
 * Runs `fn` in a transaction; the run events it emits are written at the end
 * of that transaction in one batch (one sequence bump, one insert) and
 * published on the bus only after commit: followers never see an event
 * Postgres does not have.
 */
export async function inRunTx<T>(
  deps: Pick<Deps, 'db' | 'bus'>,
  runId: string,
  accountId: string,
  fn: (trx: Knex.Transaction, emit: Emit) => Promise<T>,
): Promise<T> {
  let written: RunEvent[] = [];
  const result = await deps.db.transaction(async (trx) => {
    const pending: Array<{ type: string; data: Record<string, unknown> }> = [];
    const value = await fn(trx, (type, data) => void pending.push({ type, data }));
    written = await appendEvents(trx, runId, accountId, pending);
    return value;
  });
  announce(deps, runId, written);
  return result;
}

/** Events that go with no other change (progress, domainStream): one statement, no transaction. */
export async function emitRunEvents(
  deps: Pick<Deps, 'db' | 'bus'>,
  runId: string,
  accountId: string,
  events: Array<{ type: string; data: Record<string, unknown> }>,
  guard?: EventGuard,
): Promise<RunEvent[]> {
  const written = await appendEvents(deps.db, runId, accountId, events, guard);
  announce(deps, runId, written);
  return written;
}

export async function emitRunEvent(
  deps: Pick<Deps, 'db' | 'bus'>,
  runId: string,
  accountId: string,
  type: string,
  data: Record<string, unknown>,
): Promise<void> {
  await emitRunEvents(deps, runId, accountId, [{ type, data }]);
}
