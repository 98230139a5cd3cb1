import type { Deps } from '../../shared/deps.js';
import type { Stoppable } from '../../shared/lifecycle.js';
import { fireDueSchedules } from './firing.js';

/**
 * The schedules' tick, in every clock process (not only the leader): each
 * SCHEDULE_TICK_MS it claims what is due. Unlike the sweeps (a per-minute
 * job the leader enqueues) schedules may tick every second, and the claim in
 * Postgres (FOR UPDATE SKIP LOCKED) is what makes a tick fire once, so every
 * clock claiming is safe and a clock that dies leaves the ticks to the others.
 * Ticks of one process never overlap; stop() waits for the one in flight.
 */
export function startScheduleTicker(deps: Deps): Stoppable {
  let inFlight: Promise<void> | null = null;
  const tick = () => {
    if (inFlight) return;
    inFlight = fireDueSchedules(deps)
      .then((r) => {
        if (r.claimed > 0) deps.log.info(r, 'schedules fired');
      })
      .catch((err: Error) => deps.log.warn({ err: err.message }, 'schedule tick failed'))
      .finally(() => {
        inFlight = null;
      });
  };
  const timer = setInterval(tick, deps.config.SCHEDULE_TICK_MS);
  return {
    name: 'schedules',
    stop: async () => {
      clearInterval(timer);
      await inFlight;
    },
  };
}
