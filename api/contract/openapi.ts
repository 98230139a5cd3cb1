import type { TSchema } from '@sinclair/typebox';
import { EmptyBody, ErrorEnvelope } from '../../shared/schemas/common.js';
import { SERVICE_VERSION } from '../../shared/version.js';
import type { AnyRoute } from '../../shared/http/route-spec.js';

type Json = Record<string, unknown>;

/**
 * Copies a TypeBox schema into plain JSON, replacing every schema that has an
 * `$id` with a `$ref` into components (registering it there once), so each
 * named schema appears once in the document and in the catalog.
 */
export function collect(schema: TSchema, components: Record<string, Json>): Json {
  const walk = (node: unknown, top: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, false));
    if (!node || typeof node !== 'object') return node;
    const obj = node as Json;
    const id = typeof obj.$id === 'string' ? obj.$id : undefined;
    if (id && !top) {
      if (!components[id]) {
        components[id] = {}; // reserve first: a schema may contain itself
        components[id] = walk(obj, true) as Json;
      }
      return { $ref: `#/components/schemas/${id}` };
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(obj)) {
      if (k === '$id') continue;
      out[k] = walk(v, false);
    }
    return out;
  };
  return walk(schema, false) as Json;
}

const ERROR_RESPONSES: Record<number, string> = {
  400: 'invalidPayload: the request failed validation',
  401: 'unauthorized: missing, unknown or revoked token',
  403: 'forbidden: the token lacks a scope, or an unactivated account used its allowance',
  404: 'notFound',
  409: 'conflict',
  422: 'policyViolation',
  429: 'rateLimitExceeded or quotaExceeded (a run submission: its account holds as many runs as it may); Retry-After',
  500: 'internalError',
  503: 'unavailable: a dependency is away, or (a run submission) a domain queue is past its depth; Retry-After',
};

function parameters(route: AnyRoute, components: Record<string, Json>): Json[] {
  const list: Json[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const props = (schema as unknown as { properties?: Record<string, TSchema>; required?: string[] }).properties ?? {};
    const required = new Set((schema as unknown as { required?: string[] }).required ?? []);
    for (const [name, prop] of Object.entries(props)) {
      list.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        schema: collect(prop, components),
        ...(prop.description ? { description: prop.description } : {}),
      });
    }
  }
  // Path parameters nobody declared still have to be listed for a valid document.
  for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
    if (!list.some((p) => p.in === 'path' && p.name === name))
      list.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  return list;
}

/**
 * A request the service sends (OpenAPI 3.1 `webhooks`): one per event type.
 * Headers are shared by name, so each is declared once under components.
 */
export interface WebhookSpec {
  name: string;
  summary: string;
  description?: string;
  body: TSchema;
  headers: Record<string, { description: string; schema: TSchema }>;
  /** Response status (or range, or `default`) → what the service does with it. */
  responses: Record<string, string>;
}

function webhookOperations(
  webhooks: WebhookSpec[],
  components: Record<string, Json>,
  parameters: Record<string, Json>,
): Json {
  const out: Json = {};
  for (const w of webhooks) {
    for (const [name, header] of Object.entries(w.headers)) {
      parameters[name] ??= {
        name,
        in: 'header',
        required: true,
        description: header.description,
        schema: collect(header.schema, components),
      };
    }
    out[w.name] = {
      post: {
        operationId: `webhook ${w.name}`
          .split(/[^A-Za-z0-9]+/)
          .map((x, i) => (i === 0 ? x : x[0]!.toUpperCase() + x.slice(1)))
          .join(''),
        tags: ['webhooks'],
        summary: w.summary,
        ...(w.description ? { description: w.description } : {}),
        parameters: Object.keys(w.headers).map((name) => ({ $ref: `#/components/parameters/${name}` })),
        requestBody: { required: true, content: { 'application/json': { schema: collect(w.body, components) } } },
        responses: Object.fromEntries(
          Object.entries(w.responses).map(([status, description]) => [status, { description }]),
        ),
      },
    };
  }
  return out;
}

export function operationId(route: AnyRoute): string {
  const words = `${route.method.toLowerCase()} ${route.path}`
    .replace(/[{}]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
}

/** Builds the OpenAPI 3.1.0 document from the route table and the webhooks (the event registry) alone. */
export function buildOpenApi(routes: AnyRoute[], baseUrl?: string, webhooks: WebhookSpec[] = []): Json {
  const components: Record<string, Json> = {};
  const errorRef = collect(ErrorEnvelope, components);
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const responses: Json = {};
    for (const [status, schema] of Object.entries(
      route.response ?? {
        200: { type: 'object', properties: { ok: { const: true } }, additionalProperties: true } as unknown as TSchema,
      },
    )) {
      responses[status] = {
        description: Number(status) < 300 ? 'Success' : 'See schema',
        content: { 'application/json': { schema: collect(schema, components) } },
      };
    }
    const errors = [
      400,
      404,
      429,
      500,
      503,
      ...(route.auth !== 'public' ? [401, 403] : []),
      ...(route.method === 'POST' ? [409] : []),
    ];
    for (const status of errors.sort()) {
      responses[status] ??= {
        description: ERROR_RESPONSES[status],
        content: { 'application/json': { schema: errorRef } },
      };
    }
    if (!route.handler)
      responses[501] = {
        description: `notImplemented: arrives with issue ${route.pendingIssue ?? 'later'}`,
        content: { 'application/json': { schema: errorRef } },
      };
    const op: Json = {
      operationId: operationId(route),
      tags: [route.tag],
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      security:
        route.auth === 'bearer'
          ? [{ bearerAuth: route.scopes ?? [] }]
          : route.auth === 'sandboxOrBearer'
            ? [{ bearerAuth: route.scopes ?? [] }, {}]
            : [],
      parameters: parameters(route, components),
      responses,
      'x-awp-scopes': route.scopes ?? [],
      'x-awp-implemented': Boolean(route.handler),
      ...(route.countsAsWorkflow ? { 'x-awp-workflow-request': true } : {}),
      ...(route.mcpTool ? { 'x-awp-mcp-tool': route.mcpTool } : {}),
      ...(route.domain ? { 'x-awp-domain': route.domain } : {}),
    };
    if (route.method !== 'GET') {
      // A route that reads no body still validates one (any object): the same schema, named.
      const body = route.body ?? EmptyBody;
      const schema = collect(body, components);
      op.requestBody = {
        required: Boolean(route.body && (route.body as unknown as { required?: string[] }).required?.length),
        content: {
          'application/json': { schema },
          ...(route.formBody ? { 'application/x-www-form-urlencoded': { schema } } : {}),
        },
      };
    }
    (paths[route.path] ??= {})[route.method.toLowerCase()] = op;
  }
  const headerParams: Record<string, Json> = {};
  const hooks = webhookOperations(webhooks, components, headerParams);
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({ name }));
  if (webhooks.length > 0)
    tags.push({
      name: 'webhooks',
      description:
        'Requests the service sends to subscribed endpoints (POST /v1/event-subscriptions), signed per ' +
        'Standard Webhooks',
    } as { name: string });
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Agentic Work Protocol service',
      version: SERVICE_VERSION,
      description:
        'REST/JSON API for durable agentic work. Errors use the envelope { ok: false, error, message, ' +
        'details?, requestId }.',
    },
    servers: [{ url: baseUrl ?? '/' }],
    tags,
    paths,
    ...(webhooks.length > 0 ? { webhooks: hooks } : {}),
    components: {
      schemas: components,
      ...(webhooks.length > 0 ? { parameters: headerParams } : {}),
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API token (awp_...)' } },
    },
  };
}
