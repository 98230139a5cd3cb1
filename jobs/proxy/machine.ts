import type { MissionStatus } from './schemas.js';
import { defineMachine } from '../state-machine.js';

/**
 * A proxy mission's statuses and the moves between them: `open` when
 * created, `inProgress` once a person takes it (and back to `open` if they
 * hand it back), then `resolved` (an outcome: confirmedSuccess or
 * providerUnavailable), `failed` (outcome failed), `expired` (the clock, after
 * PROXY_MISSION_TTL_HOURS) or `canceled`. The four with no moves are final,
 * so a second outcome is 409.
 */
export const MISSIONS = defineMachine({
  open: ['inProgress', 'resolved', 'failed', 'expired', 'canceled'],
  inProgress: ['open', 'resolved', 'failed', 'expired', 'canceled'],
  resolved: [],
  failed: [],
  expired: [],
  canceled: [],
} satisfies Record<MissionStatus, MissionStatus[]>);

/** Missions a person may still act on: an outcome, the clock or a cancel ends them. */
export const LIVE_MISSION_STATUSES = MISSIONS.statuses.filter((s) => !MISSIONS.isTerminal(s));
