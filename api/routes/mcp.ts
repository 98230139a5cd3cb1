import { routeGroup } from '../../shared/http/route-group.js';
import { JsonRpcMessage } from '../transports/jsonrpc-schemas.js';
import type { AnyRoute } from '../../shared/http/route-spec.js';
import { mcpAnswer } from '../transports/mcp.js';
import { JsonRpcResponse } from '../contract/schemas.js';

// The transport's endpoint needs a token (and one that may be used over MCP); each tool then needs its route's scopes.
const r = routeGroup('mcp', { read: [], write: [] });

/** The MCP endpoint lists the route table's tools, so it reads the table when a request comes (it is part of it). */
export function mcpRoutes(table: () => AnyRoute[]): AnyRoute[] {
  return [
    r.post('/mcp', 'MCP JSON-RPC tool calls (Streamable HTTP, stateless, JSON responses)', {
      description:
        'initialize, ping, notifications (202), tools/list and tools/call. Tools are the routes with an ' +
        'x-awp-mcp-tool name; a call runs that route with the same scopes, validation, workflow allowance ' +
        'and quota. GET and DELETE answer 405 (no sessions). One message per request.',
      body: JsonRpcMessage,
      streams: true,
      transport: 'mcp',
      response: { 200: JsonRpcResponse },
      handler: ({ body, params: _params, query: _query, ...call }, deps) => mcpAnswer(table, call, body, deps),
    }),
  ];
}
