import type { TSchema } from '@sinclair/typebox';
import type { AnyRoute } from '../../shared/http/route-spec.js';
import { missingScopes } from '../../shared/auth/scopes.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { withoutIds } from '../../shared/validation.js';
import type { RawInput } from '../routes/pipeline.js';

/**
 * MCP tools are the route table's routes that name an `mcpTool` and have a
 * handler: a domain that lands with tool routes adds its tools, a route still
 * pending adds none, and there is no second list to keep in step.
 */
export function toolRoutes(table: AnyRoute[]): Map<string, AnyRoute> {
  return new Map(table.filter((r) => r.mcpTool && r.handler).map((r) => [r.mcpTool!, r]));
}

interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: unknown;
}

const shape = (schema: TSchema | undefined): ObjectSchema => (schema ?? {}) as ObjectSchema;

/**
 * A tool's arguments are the route's input in one object: the body's schema,
 * plus its path parameters (required) and query parameters as properties.
 * `$id`s are dropped: a client compiles every tool's schema into one
 * validator, which refuses an id it has seen in another tool.
 */
export function toolInputSchema(route: AnyRoute): Record<string, unknown> {
  const params = shape(route.params);
  const query = shape(route.query);
  const body = shape(route.body);
  const schema: Record<string, unknown> = {
    type: 'object',
    properties: { ...query.properties, ...body.properties, ...params.properties },
    required: [...new Set([...(params.required ?? Object.keys(params.properties ?? {})), ...(body.required ?? [])])],
  };
  if (body.additionalProperties !== undefined) schema.additionalProperties = body.additionalProperties;
  return withoutIds(JSON.parse(JSON.stringify(schema))) as Record<string, unknown>;
}

/** Splits tool arguments back into the route's params, query and body (a name the body also declares goes to both). */
export function routeInput(route: AnyRoute, args: Record<string, unknown>): RawInput {
  const paramNames = new Set(Object.keys(shape(route.params).properties ?? {}));
  const queryNames = new Set(Object.keys(shape(route.query).properties ?? {}));
  const bodyNames = new Set(Object.keys(shape(route.body).properties ?? {}));
  const params: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (paramNames.has(k)) params[k] = v;
    else if (queryNames.has(k)) query[k] = v;
    if ((!paramNames.has(k) && !queryNames.has(k)) || bodyNames.has(k)) body[k] = v;
  }
  return { params, query, body: route.method === 'GET' ? undefined : body };
}

/** Whether a principal could call the route at all: tools/list shows only those. */
export function mayCall(principal: Principal, route: AnyRoute): boolean {
  return route.auth === 'public' || missingScopes(principal, route.scopes).length === 0;
}

/** The tool as tools/list describes it. */
export function toolDefinition(route: AnyRoute) {
  return {
    name: route.mcpTool!,
    title: route.summary,
    description: [route.summary, route.description, `Same as ${route.method} ${route.path}.`]
      .filter(Boolean)
      .join('\n\n'),
    inputSchema: toolInputSchema(route),
    annotations: { title: route.summary, readOnlyHint: route.method === 'GET', openWorldHint: false },
  };
}
