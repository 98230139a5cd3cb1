import { routeGroup } from './group.js';

const r = routeGroup('audit', { read: ['audit:read'], write: ['audit:read'] });

export const routes = [r.get('/v1/audit/proofPacks/{packId}', 'Fetch a sealed proof pack')];
