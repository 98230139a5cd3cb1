import { routeGroup } from './group.js';

const r = routeGroup('events', { read: ['events:read'], write: ['events:write'] });

export const routes = [
  r.post('/v1/event-deliveries', 'Create a delivery attempt'),
  r.get('/v1/event-deliveries', 'List delivery attempts', { list: true }),
  r.get('/v1/event-deliveries/stats', 'Queue health summary'),
  r.get('/v1/event-deliveries/ready', 'List claimable attempts without claiming'),
  r.get('/v1/event-deliveries/{deliveryId}', 'Fetch a delivery attempt'),
  r.get('/v1/event-deliveries/{deliveryId}/chain', 'Retry lineage'),
  r.post('/v1/event-deliveries/claim', 'Claim the next queued attempt'),
  r.post('/v1/event-deliveries/claimBatch', 'Claim a batch of ready attempts'),
  r.post('/v1/event-deliveries/sweep', 'Return expired leases to queued'),
  r.post('/v1/event-deliveries/{deliveryId}/retry', 'Retry a failed or canceled attempt'),
  r.post('/v1/event-deliveries/{deliveryId}/fail', 'Fail and optionally schedule a retry'),
  r.post('/v1/event-deliveries/{deliveryId}/complete', 'Complete a claimed attempt'),
  r.post('/v1/event-deliveries/{deliveryId}/cancel', 'Cancel an attempt'),
  r.post('/v1/event-deliveries/{deliveryId}/lease', 'Renew a lease'),
  r.post('/v1/event-deliveries/{deliveryId}/release', 'Release back to queued'),
  r.post('/v1/event-deliveries/{deliveryId}/update', 'Update an attempt'),
];
