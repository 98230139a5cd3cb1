import { ProxyMissionCreate, ProxyOutcome } from '../../shared/schemas/proxy-pay.js';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('proxy', { read: ['proxy:read'], write: ['proxy:write'], domain: 'proxy' });

export const routes = [
  r.get('/v1/proxy/missions', 'List proxy missions', { list: true }),
  r.post('/v1/proxy/missions', 'Create a human-in-the-loop mission', { body: ProxyMissionCreate, mcpTool: 'proxy.createMission' }),
  r.get('/v1/proxy/missions/{proxyId}', 'Mission with status, context, outcome, proof artefacts'),
  r.post('/v1/proxy/missions/{proxyId}/outcome', 'Submit a mission outcome', { body: ProxyOutcome }),
  r.post('/v1/proxy/outcomes', 'Submit an outcome by proxy, request, provider or connector callback reference'),
];
