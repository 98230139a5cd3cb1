import type { Deps } from '../../shared/deps.js';
import { missionsToClose } from './repository.js';
import { AppError } from '../../shared/errors.js';
import { LIVE_MISSION_STATUSES } from './machine.js';
import { endMission } from './outcome.js';

/** Missions one sweep closes at most; a backlog drains over the next minutes. */
const BATCH = 200;

/**
 * The clock's `proxy.expire` sweep (every minute): live missions past their
 * expiry become `expired`, and live missions whose run ended (canceled,
 * failed) become `canceled`, each through the same path as an outcome, so
 * the event is written and a run waiting on an expired mission resumes to
 * report it. A mission that just got its outcome, or whose run has not come
 * to rest yet, answers 409 and is left for the next sweep.
 */
export async function sweepMissions(deps: Deps): Promise<{ expired: number; canceled: number; skipped: number }> {
  const due = await missionsToClose(deps.db, LIVE_MISSION_STATUSES, BATCH);
  const counts = { expired: 0, canceled: 0, skipped: 0 };
  for (const m of due) {
    const to = m.why === 'expired' ? 'expired' : 'canceled';
    const note =
      m.why === 'expired'
        ? `no outcome within ${deps.config.PROXY_MISSION_TTL_HOURS} h`
        : 'the run that waited on it ended';
    try {
      await endMission(deps, m.account_id, m.id, { to, actor: 'clock', note });
      counts[to]++;
    } catch (err) {
      if (!(err instanceof AppError && err.status === 409)) throw err;
      counts.skipped++;
    }
  }
  return counts;
}
