import type { Deps } from '../../shared/deps.js';
import type { DomainSweep } from '../domain.js';
import { fromModules } from '../module-registry.js';
import { sweepStuckRuns } from '../orchestrator/stuck-runs.js';
import { sweepLostRuns } from '../orchestrator/lost-runs.js';
import { sweepAdmissions } from '../orchestrator/admission.js';
import { sweepUnfinalizedRuns } from '../orchestrator/unfinalized-runs.js';
import { sweepWaitpoints } from '../orchestrator/waitpoint-expiry.js';
import {
  sweepDeliveries,
  sweepIdempotencyKeys,
  sweepMails,
  sweepRunEventPartitions,
  sweepRunEvents,
  sweepRunSteps,
} from './retention.js';

/**
 * Periodic maintenance, each a plain function of deps. The clock process only
 * enqueues their names on a schedule; a worker on the `clock` queue runs them,
 * so a slow sweep never delays the schedule and two clocks never double-run one.
 */
const ENGINE_SWEEPS: Record<string, DomainSweep> = {
  'runs.stuck': { cron: '* * * * *', run: sweepStuckRuns },
  // A run canceled or failed in flight whose finalize job was lost gets its final state within a minute or two.
  'runs.unfinalized': { cron: '* * * * *', run: sweepUnfinalizedRuns },
  // Held runs a finalizer did not admit (it crashed after its write, Postgres was away) start within a minute.
  'runs.admit': { cron: '* * * * *', run: sweepAdmissions },
  // Approvals escalate before they expire, and fail closed when they do.
  'waitpoints.expire': { cron: '* * * * *', run: sweepWaitpoints },
  // Retention (./retention.ts): every ten minutes, at staggered minutes, each bounded to a few batches.
  'idempotency.purge': { cron: '1-59/10 * * * *', run: sweepIdempotencyKeys },
  'retention.runEventWeeks': { cron: '2-59/10 * * * *', run: sweepRunEventPartitions },
  'retention.runEvents': { cron: '3-59/10 * * * *', run: sweepRunEvents },
  'retention.runSteps': { cron: '5-59/10 * * * *', run: sweepRunSteps },
  'retention.deliveries': { cron: '7-59/10 * * * *', run: sweepDeliveries },
  'retention.mails': { cron: '9-59/10 * * * *', run: sweepMails },
};

/** The engine's sweeps, then the modules' own (proxy.expire, deliveries.pump), named by their modules. */
export const sweeps: () => Readonly<Record<string, DomainSweep>> = fromModules((m) => ({
  ...ENGINE_SWEEPS,
  ...m.sweeps,
}));

/**
 * Passes the clock asks for when something happened rather than on a schedule (workers/clock.ts): `runs.lost` once
 * Redis is back after losing its connection, or a clock became leader (its lease gone with an emptied Redis, say).
 */
export const TRIGGERED_SWEEPS: Readonly<Record<string, (deps: Deps) => Promise<unknown>>> = {
  'runs.lost': sweepLostRuns,
};
