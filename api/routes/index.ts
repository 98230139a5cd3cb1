import type { AnyRoute } from './route-spec.js';
import { routes as contract } from './contract.js';
import { routes as profiles } from './profiles.js';
import { routes as tokens } from './tokens.js';

/**
 * The route table: every route of the service, declared once in its group
 * file. Koa routing, OpenAPI, /v1/protocol-map, /v1/schemas and MCP tools
 * are all derived from this list.
 */
export const ALL_ROUTES: AnyRoute[] = [...contract, ...profiles, ...tokens];
