import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../shared/schemas/common.js';
import type { DomainEvent } from '../domain.js';

/** What became of a rule's match: `pending` until its run is asked for, then one of the others. */
export const MATCH_OUTCOMES = ['pending', 'started', 'deduplicated', 'rateLimited', 'refused', 'failed'] as const;
export type MatchOutcome = (typeof MATCH_OUTCOMES)[number];

/** What became of a schedule's firing; `missed` records ticks dropped under catchUp `none`. */
export const FIRING_OUTCOMES = ['pending', 'started', 'skippedOverlap', 'refused', 'failed', 'missed'] as const;
export type FiringOutcome = (typeof FIRING_OUTCOMES)[number];
export const FIRING_TRIGGERS = ['tick', 'catchUp', 'manual'] as const;
export type FiringTrigger = (typeof FIRING_TRIGGERS)[number];

const started = {
  runId: Type.Union([Type.String(), Type.Null()], { description: 'The run it started; null when none was' }),
  reason: Type.Union([Type.String(), Type.Null()], {
    description:
      'Why no run started (quota, hold or queue-depth refusal, dedup window, rate limit, overlap, start failure)',
  }),
};

/**
 * The outbox events of signals and schedules. They are not a domain's
 * (nothing routes to them), so jobs/events/registry.ts lists them as a module
 * of their own beside the domains' events.
 */
export const automationEvents = {
  name: 'automation',
  events: {
    'signal.matched': {
      description:
        "A signal matched a signal rule; written when the match's outcome is known " +
        '(a run started, deduplicated, rate limited, refused by the quota or for load, or failed to start)',
      payload: Type.Object(
        {
          signalId: Type.String(),
          ruleId: Type.Union([Type.String(), Type.Null()], { description: 'null when the rule was deleted meanwhile' }),
          matchId: Type.String(),
          subject: Type.String(),
          outcome: StringEnum(MATCH_OUTCOMES.filter((o) => o !== 'pending')),
          ...started,
        },
        { $id: 'SignalMatchedPayload' },
      ),
    },
    'schedule.fired': {
      description:
        "A schedule fired (a tick, a catch-up after downtime, or a manual trigger); written with the firing's outcome",
      payload: Type.Object(
        {
          scheduleId: Type.String(),
          firingId: Type.String(),
          scheduledFor: Type.String({ format: 'date-time' }),
          trigger: StringEnum(FIRING_TRIGGERS),
          outcome: StringEnum(FIRING_OUTCOMES.filter((o) => o !== 'pending')),
          missed: Type.Integer({
            minimum: 0,
            description: 'Earlier ticks that passed during downtime and were not run',
          }),
          ...started,
        },
        { $id: 'ScheduleFiredPayload' },
      ),
    },
  } satisfies Record<string, DomainEvent>,
};
