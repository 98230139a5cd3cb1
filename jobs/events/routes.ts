import { acknowledgeEvent, fetchEventWithDeliveries, findEvents, recordClientEvent } from './events-service.js';
import { eventDeliveryView, eventView } from './views.js';
import {
  EventAnswer,
  EventCreate,
  EventDetail,
  EventListQuery,
  EventPage,
  EventRecorded,
  EventStreamEvent,
  EventStreamQuery,
} from '../../shared/schemas/events.js';
import { EVENTS_STREAM_EVENTS, followEvents } from './stream.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';

const r = routeGroup('events', { read: ['events:read'], write: ['events:write'] });

export const routes = [
  r.post('/v1/events', 'Record an integration event; it fans out to matching subscriptions in the same transaction', {
    body: EventCreate,
    response: { 201: EventRecorded },
    handler: async ({ body, principal }, deps) => {
      const { event, deliveries } = await recordClientEvent(deps, principal!, body);
      return new Reply(201, { ok: true, event: eventView(event), deliveries });
    },
  }),
  r.get('/v1/events', 'List outbox records (filters: type, since, until, acknowledged; cursor pagination)', {
    query: EventListQuery,
    response: { 200: EventPage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findEvents(deps, principal!, query);
      return { ok: true, events: rows.map(eventView), nextCursor };
    },
  }),
  r.get('/v1/events/stream', "The account's events as they happen (Server-Sent Events): their heads, by type", {
    description:
      `Events: ${EVENTS_STREAM_EVENTS.join(', ')}. From the moment it opens: each \`event\` frame names an ` +
      'event (id, type, subject, time) of the caller’s account matching `types`; its payload is ' +
      'GET /v1/events/{eventId}. Read from the outbox every few seconds, looking back over late commits; meant ' +
      'for lists that reload when something of their kind happened. A signed-in dashboard reads it with its cookie.',
    query: EventStreamQuery,
    streams: true,
    response: { 200: EventStreamEvent },
    handler: ({ query, principal, signal }, deps) =>
      Reply.stream(
        followEvents(deps, principal!.accountId, query.types ? query.types.split(',') : ['*'], signal),
        'text/event-stream',
      ),
  }),
  r.get('/v1/events/{eventId}', 'Fetch an event with its delivery attempts', {
    response: { 200: EventDetail },
    handler: async ({ params, principal }, deps) => {
      const { event, deliveries } = await fetchEventWithDeliveries(deps, principal!, params.eventId!);
      return { ok: true, event: eventView(event), deliveries: deliveries.map(eventDeliveryView) };
    },
  }),
  r.post('/v1/events/{eventId}/ack', 'Acknowledge an event (idempotent: the first ack time is kept)', {
    response: { 200: EventAnswer },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      event: eventView(await acknowledgeEvent(deps, principal!, params.eventId!)),
    }),
  }),
];
