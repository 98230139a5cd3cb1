import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('mcp', { read: ['tools:use'], write: ['tools:use'] });

export const routes = [r.post('/mcp', 'MCP JSON-RPC tool calls (streamable HTTP, stateless)', { streams: true })];
