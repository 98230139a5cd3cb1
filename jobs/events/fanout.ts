import type { Deps } from '../../shared/deps.js';
import { eventsNotFannedOut, fanOut, markFannedOut } from '../../shared/db/outbox.js';
import { sweepExpiredLeases } from '../../shared/db/deliveries.js';
import { wakeDispatcher } from './wake.js';

/**
 * Reconciles the outbox with the ledger: any event not yet fanned out
 * (written by a path that skipped recordEvent's fan-out) gets its attempts.
 * Fan-out is idempotent, so running this twice changes nothing.
 */
export async function reconcileOutbox(deps: Deps): Promise<{ events: number; deliveries: number }> {
  const pending = await eventsNotFannedOut(deps.db, 500);
  let deliveries = 0;
  for (const e of pending) {
    deliveries += await deps.db.transaction(async (trx) => {
      const n = await fanOut(trx, e.id);
      await markFannedOut(trx, e.id);
      return n;
    });
  }
  if (deliveries > 0) await wakeDispatcher(deps);
  return { events: pending.length, deliveries };
}

/** Returns expired leases to queued (a dispatcher died holding them) and wakes the dispatcher for them. */
export async function sweepLeases(deps: Deps): Promise<{ returned: number }> {
  const ids = await sweepExpiredLeases(deps.db, null);
  if (ids.length > 0) await wakeDispatcher(deps);
  return { returned: ids.length };
}
