import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('audit', { read: ['audit:read'], write: ['audit:read'] });

export const routes = [r.get('/v1/audit/proofPacks/{packId}', 'Fetch a sealed proof pack')];
