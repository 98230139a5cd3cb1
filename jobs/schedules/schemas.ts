import { Type, type Static } from '@sinclair/typebox';
import { Ok, Page, StringEnum, Timestamp } from '../../shared/schemas/common.js';
import { FIRING_OUTCOMES, FIRING_TRIGGERS, GrantFields, RunTarget } from '../automation/index.js';
import { CATCH_UP_POLICIES } from './logic.js';

export const SCHEDULE_STATUSES = ['active', 'paused'] as const;
export const OVERLAP_POLICIES = ['skip', 'allow'] as const;

export const ScheduleCreate = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'A label for people; defaults to the cron expression' }),
    ),
    cron: Type.String({
      minLength: 9,
      maxLength: 200,
      description:
        'Five fields (minute hour day-of-month month day-of-week) or six with seconds first; parsed by cron-parser',
    }),
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        default: 'UTC',
        description: 'IANA time zone the cron reads in (Europe/Berlin); daylight-saving transitions follow its rules',
      }),
    ),
    target: RunTarget,
    overlap: Type.Optional(
      StringEnum(OVERLAP_POLICIES, {
        default: 'skip',
        description:
          'skip: a tick whose previous run has not finished records skippedOverlap and starts nothing; ' +
          'allow: it starts another',
      }),
    ),
    catchUp: Type.Optional(
      StringEnum(CATCH_UP_POLICIES, {
        default: 'none',
        description: 'Ticks missed while no clock ran: none records them as missed; once runs the latest one once',
      }),
    ),
  },
  { $id: 'ScheduleCreate' },
);
export type ScheduleCreate = Static<typeof ScheduleCreate>;

export const FiringView = Type.Object(
  {
    firingId: Type.String(),
    scheduledFor: Timestamp,
    trigger: StringEnum(FIRING_TRIGGERS),
    outcome: StringEnum(FIRING_OUTCOMES),
    missed: Type.Integer({ description: 'Earlier ticks that passed during downtime and were not run' }),
    runId: Type.Union([Type.String(), Type.Null()]),
    reason: Type.Union([Type.String(), Type.Null()]),
    at: Timestamp,
  },
  { $id: 'ScheduleFiring' },
);

export const ScheduleView = Type.Object(
  {
    scheduleId: Type.String(),
    name: Type.String(),
    cron: Type.String(),
    timezone: Type.String(),
    target: RunTarget,
    overlap: StringEnum(OVERLAP_POLICIES),
    catchUp: StringEnum(CATCH_UP_POLICIES),
    status: StringEnum(SCHEDULE_STATUSES),
    nextFireAt: Type.Union([Timestamp, Type.Null()], { description: 'null while paused' }),
    lastFiredAt: Type.Union([Timestamp, Type.Null()]),
    ...GrantFields,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Schedule' },
);
export const ScheduleAnswer = Ok({ schedule: ScheduleView }, 'ScheduleAnswer');
export const ScheduleDetail = Ok(
  {
    schedule: ScheduleView,
    nextFireTimes: Type.Array(Timestamp, { description: 'The next five ticks (none while paused)' }),
    recentFirings: Type.Array(FiringView, { description: 'The last ten firings, newest first' }),
  },
  'ScheduleDetail',
);
export const SchedulePage = Page('schedules', ScheduleView, 'SchedulePage');
export const FiringAnswer = Ok({ firing: FiringView }, 'ScheduleFiringAnswer');
