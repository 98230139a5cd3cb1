import { routeGroup } from './group.js';

const r = routeGroup('events', { read: ['events:read'], write: ['events:write'] });

export const routes = [
  r.post('/v1/events', 'Record an integration event'),
  r.get('/v1/events', 'List outbox records', { list: true }),
  r.get('/v1/events/{eventId}', 'Fetch an event'),
  r.post('/v1/events/{eventId}/ack', 'Acknowledge an event'),
];
