import { routeGroup } from './group.js';

const r = routeGroup('events', { read: ['events:read'], write: ['events:write'] });

export const routes = [
  r.post('/v1/events/subscriptions', 'Register a webhook subscription'),
  r.get('/v1/events/subscriptions', 'Active subscriptions of the current client', { list: true }),
  r.post('/v1/event-subscriptions', 'Register a webhook subscription'),
  r.get('/v1/event-subscriptions', 'List subscriptions', { list: true }),
  r.get('/v1/event-subscriptions/{subId}', 'Fetch a subscription'),
  r.post('/v1/event-subscriptions/{subId}/update', 'Update status, events, endpoint, or rotate the secret'),
];
