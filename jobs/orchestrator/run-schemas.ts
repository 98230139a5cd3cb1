import { Type } from '@sinclair/typebox';

/** Largest run event id: `run_events.seq` is a Postgres integer, which refuses anything above this. */
export const MAX_EVENT_ID = 2_147_483_647;

export const RunEventsQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_EVENT_ID,
      description: 'Resume after this event id (same as Last-Event-ID)',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 500,
      default: 100,
      description: 'Events per page of the JSON answer (Accept: application/json); streams ignore it',
    }),
  ),
});
