import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('a2a', { read: ['agents:read'], write: ['agents:write'] });

export const routes = [
  r.get('/v1/a2a/contract', 'A2A envelope contract'),
  r.post('/v1/a2a/envelopes', 'Create a delegation envelope'),
  r.get('/v1/a2a/envelopes', 'List envelopes', { list: true }),
  r.get('/v1/a2a/envelopes/{msgId}', 'Fetch an envelope'),
  r.post('/v1/a2a/envelopes/{msgId}/update', 'Update delivery status'),
];
