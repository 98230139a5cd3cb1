import { MODULES } from '../../jobs/modules.js';
import type { AnyRoute } from '../../shared/http/route-spec.js';
import { a2aRoutes } from './a2a.js';
import { contractRoutes } from './contract.js';
import { mcpRoutes } from './mcp.js';
import { routes as wellKnown } from './well-known.js';

/**
 * The route table: the contract and the transports (this folder), then every
 * module's routes, from the registry of the two lists (jobs/modules.ts:
 * service modules, then domains, delivery's run routes among its own). Koa routing, OpenAPI, /v1/protocol-map,
 * /v1/schemas and
 * MCP tools are all derived from this list (order does not matter: literal
 * segments are registered before parameters).
 */
export const ALL_ROUTES: AnyRoute[] = [];
ALL_ROUTES.push(
  ...contractRoutes(() => ALL_ROUTES),
  ...a2aRoutes(() => ALL_ROUTES),
  ...mcpRoutes(() => ALL_ROUTES),
  ...wellKnown,
  ...MODULES.routes,
);
