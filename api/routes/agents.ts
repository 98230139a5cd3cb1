import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('agents', { read: ['agents:read'], write: ['agents:write'] });

export const routes = [
  r.get('/v1/agents', 'List agent cards', { list: true }),
  r.post('/v1/agents', 'Register an agent card'),
  r.get('/v1/agents/{agentId}', 'Fetch an agent card'),
  r.post('/v1/agents/match', 'Match agents by domain and capabilities'),
  r.post('/v1/agents/delegate', 'Create an A2A delegation plan'),
];
