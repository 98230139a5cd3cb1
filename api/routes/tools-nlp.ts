import { routeGroup } from './group.js';

const r = routeGroup('tools', { read: ['tools:use'], write: ['tools:use'] });

export const routes = [r.post('/v1/tools/nlp', 'Classify a query, detect follow-up context, select domain routing', { mcpTool: 'tools.nlp' })];
