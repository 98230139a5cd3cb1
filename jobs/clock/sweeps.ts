import type { Deps } from '../../shared/deps.js';
import { purgeExpiredIdempotency } from '../../shared/db/idempotency.js';
import { sweepStuckRuns } from '../orchestrator/stuck-runs.js';
import { reconcileOutbox, sweepLeases } from '../events/fanout.js';
import { wakeDispatcher } from '../events/ledger.js';

/**
 * Periodic maintenance, each a plain function of deps. The clock process only
 * enqueues their names on a schedule; a worker on the `clock` queue runs them,
 * so a slow sweep never delays the schedule and two clocks never double-run one.
 */
export const SWEEPS: Record<string, { cron: string; run: (deps: Deps) => Promise<unknown> }> = {
  'runs.stuck': { cron: '* * * * *', run: sweepStuckRuns },
  'deliveries.sweep': { cron: '* * * * *', run: sweepLeases },
  // A lost wake-up delays a delivery by at most a minute: the pump claims whatever is due.
  'deliveries.pump': { cron: '* * * * *', run: async (deps) => { await wakeDispatcher(deps); return { woke: true }; } },
  'outbox.reconcile': { cron: '*/5 * * * *', run: reconcileOutbox },
  'idempotency.purge': {
    cron: '17 * * * *',
    run: async (deps) => ({ purged: await purgeExpiredIdempotency(deps.db, deps.config.IDEMPOTENCY_TTL_HOURS, deps.config.IDEMPOTENCY_LEASE_SECONDS) }),
  },
};
