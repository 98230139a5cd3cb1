// Local data, retention, queue cleanup and schedule ticks: config schema properties.
import { Type } from '@sinclair/typebox';

export const housekeepingConfig = {
  DATA_DIR: Type.String({
    default: '.data',
    description:
      'Where `npm start` keeps local Redis and Postgres data, the local master key, and `local.json` (how the ' +
      'operator scripts find the running local services)',
  }),
  RUN_EVENTS_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    default: 30,
    description:
      'Days a run event is kept (at least: events go by the week, up to 7 days later); a run that has not ' +
      'finished keeps all its events, and every run its `final` events',
  }),
  RUN_STEPS_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    default: 30,
    description: 'Days a finished run keeps its step rows (the run, its result and proof card stay)',
  }),
  DELIVERY_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    default: 30,
    description: 'Days a webhook delivery chain is kept after its last attempt finished',
  }),
  MAIL_BODY_RETENTION_HOURS: Type.Integer({
    minimum: 0,
    default: 24,
    description:
      'Hours an unsent mail (no SMTP_URL, or sending failed) keeps its body, which holds the activation ' +
      'token; a sent mail drops it at once (so does 0); its SHA-256 stays',
  }),
  MAIL_RETENTION_DAYS: Type.Integer({ minimum: 1, default: 30, description: 'Days an outbound mail row is kept' }),
  QUEUE_KEEP_COMPLETED_SECONDS: Type.Integer({
    minimum: 0,
    default: 3600,
    description: 'Seconds a completed run job stays in Redis (Bull Board shows it); at most 5,000 per queue',
  }),
  QUEUE_KEEP_FAILED_DAYS: Type.Integer({
    minimum: 0,
    default: 7,
    description: 'Days a failed run job stays in Redis for inspection; at most 10,000 per queue',
  }),
  SCHEDULE_TICK_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 1000,
    description:
      'How often each clock process claims due schedules from Postgres (every clock claims; FOR UPDATE SKIP ' +
      'LOCKED makes each tick fire once)',
  }),
  SCHEDULE_MISFIRE_GRACE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 60,
    description:
      "A schedule tick claimed later than this (the clocks were down) follows the schedule's catchUp policy " +
      'instead of running as on time',
  }),
  RETENTION_BATCH_SIZE: Type.Integer({
    minimum: 10,
    maximum: 100_000,
    default: 1000,
    description:
      'Rows (runs, for run events and steps; `final` events moved out of a week before it goes) one retention ' +
      'batch handles; a sweep runs at most 50 batches',
  }),
};
