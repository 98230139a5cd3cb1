import type { Knex } from 'knex';
import type { Deps } from '../../shared/deps.js';
import { appendEvent, type RunEvent } from '../../shared/db/runs.js';

export type Emit = (type: string, data: Record<string, unknown>) => Promise<RunEvent>;

/**
 * Runs `fn` in a transaction whose run events are published on the bus only
 * after commit: followers never see an event Postgres does not have.
 */
export async function inRunTx<T>(deps: Pick<Deps, 'db' | 'bus'>, runId: string, accountId: string, fn: (trx: Knex.Transaction, emit: Emit) => Promise<T>): Promise<T> {
  const pending: RunEvent[] = [];
  const result = await deps.db.transaction(async (trx) =>
    fn(trx, async (type, data) => {
      const ev = await appendEvent(trx, runId, accountId, type, data);
      pending.push(ev);
      return ev;
    }),
  );
  for (const ev of pending) await deps.bus.publish(`run:${runId}`, ev).catch(() => undefined);
  return result;
}

/** One event outside any other work (progress, domainStream). */
export function emitRunEvent(deps: Pick<Deps, 'db' | 'bus'>, runId: string, accountId: string, type: string, data: Record<string, unknown>): Promise<RunEvent> {
  return inRunTx(deps, runId, accountId, (_trx, emit) => emit(type, data));
}
