import type { Knex } from 'knex';
import type { Deps } from '../../shared/deps.js';
import { appendEvents, type EventGuard, type RunEvent } from '../../shared/db/runs.js';

export type Emit = (type: string, data: Record<string, unknown>) => void;

/** Events that go with a change of a run's status (made, begun, rested, resumed, canceled, failed, expired). */
const STATUS_EVENTS = new Set(['trace', 'handoff', 'final']);

/** The account's channel of runs that moved (GET /v1/runs/events, runs-stream.ts). */
export const accountRunsChannel = (accountId: string) => `runs:${accountId}`;

/**
 * Sends events Postgres has committed to the run's live followers, without
 * waiting: one Redis connection keeps them in order, and Postgres stays the
 * record (a follower fills any gap from it), so the writer need not hold its
 * step or its answer for the round trip. A batch that may have moved the run's
 * status also names the run on its account's channel, for the account's live
 * lists (streamed output and progress do not: they never move a status).
 */
export function announce(deps: Pick<Deps, 'bus'>, runId: string, events: RunEvent[], accountId: string): void {
  if (events.length === 0) return;
  // The batch is one message (a JSON array, in order: follow.ts), however many events it carries.
  const batch: Array<[string, unknown]> = [[`run:${runId}`, events]];
  if (events.some((e) => STATUS_EVENTS.has(e.type))) batch.push([accountRunsChannel(accountId), { runId }]);
  deps.bus.publishMany(batch).catch(() => undefined);
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
  announce(deps, runId, written, accountId);
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
  announce(deps, runId, written, accountId);
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
