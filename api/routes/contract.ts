import { Type } from '@sinclair/typebox';
import { notFound } from '../../shared/errors.js';
import { DOMAIN_NAMES } from '../../shared/domain-names.js';
import { SERVICE_VERSION } from '../../shared/version.js';
import { ERROR_CODES, ErrorEnvelope, Id, Ok, StringEnum } from '../../shared/schemas/common.js';
import { EXPORT_FORMATS } from '../../jobs/orchestrator/proof-schemas.js';
import { eventTypes, WEBHOOK_HEADERS, WEBHOOK_RESPONSES, webhookEnvelope } from '../../jobs/events/registry.js';
import { buildOpenApi, collect, type WebhookSpec } from '../contract/openapi.js';
import { ContractSummary, OneSchema, OpenApiDocument, ProtocolMap, SchemaCatalog } from '../contract/schemas.js';
import type { AnyRoute } from '../../shared/http/route-spec.js';
import { modules } from '../../jobs/module-registry.js';
import { defineRoute } from '../../shared/http/route-spec.js';
import { TRANSPORTS, type Transport } from '../../shared/schemas/auth.js';
import { runtimeRoutes } from './runtime.js';

const Manifest = Ok(
  {
    name: Type.String(),
    version: Type.String(),
    domains: Type.Array(Type.String()),
    transports: Type.Array(Type.String()),
  },
  'Manifest',
);
const Handshake = Type.Object(
  {
    domains: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 50 }),
    clientId: Type.Optional(Type.String({ maxLength: 200 })),
    transport: StringEnum(TRANSPORTS, { default: 'http' }),
  },
  { $id: 'HandshakeRequest' },
);
const HandshakeResult = Ok(
  {
    compatible: Type.Boolean(),
    domains: Type.Array(Type.String(), { description: 'Requested domains this service serves' }),
    unsupportedDomains: Type.Array(Type.String()),
    transport: StringEnum(TRANSPORTS),
    transportCompatible: Type.Boolean({
      description: 'The service serves the transport and the calling token may use it',
    }),
    transports: Type.Array(
      Type.Object({
        name: StringEnum(TRANSPORTS),
        served: Type.Boolean(),
        allowed: Type.Boolean(),
        entryPoint: Type.String(),
      }),
    ),
    version: Type.String(),
    contractRef: Type.String(),
  },
  'HandshakeResult',
);

/** Where a client of each transport starts: the HTTP contract, the MCP endpoint, the A2A agent card. */
const ENTRY_POINTS: Record<Transport, string> = {
  http: '/openapi.json',
  mcp: '/mcp',
  a2a: '/.well-known/agent-card.json',
};

/** Every named schema in the route table, keyed by `$id`. */
export function schemaCatalog(routes: AnyRoute[]): Record<string, unknown> {
  const components: Record<string, Record<string, unknown>> = {};
  // Every error answers in it, though no route declares it.
  collect(ErrorEnvelope, components);
  for (const r of routes) {
    for (const s of [r.body, r.params, r.query, ...Object.values(r.response ?? {})]) if (s) collect(s, components);
  }
  for (const t of modules().templates) collect(t.input, components);
  for (const e of Object.values(eventTypes())) collect(e.payload, components);
  return components;
}

/** One webhook per registered event type: the delivered body with the type's payload inside. */
export function webhookSpecs(): WebhookSpec[] {
  return Object.values(eventTypes()).map((e) => ({
    name: e.type,
    summary: e.description,
    description:
      `Delivered to subscriptions whose events match ${e.type} (exactly, by prefix such as ` +
      `${e.type.split('.')[0]}.*, or *).`,
    body: webhookEnvelope(e.type),
    headers: WEBHOOK_HEADERS,
    responses: WEBHOOK_RESPONSES,
  }));
}

/**
 * The contract's own routes describe the whole route table, which includes
 * them: the table is handed in as a function (read when a request comes) so
 * this file does not import the table that imports it.
 */
export function contractRoutes(table: () => AnyRoute[]): AnyRoute[] {
  let openApiCache: Record<string, unknown> | undefined;
  return [
    ...runtimeRoutes(table),
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      tag: 'contract',
      auth: 'public',
      summary: 'The OpenAPI 3.1 document',
      response: { 200: OpenApiDocument },
      handler: (_input, deps) => (openApiCache ??= buildOpenApi(table(), deps.config.PUBLIC_BASE_URL, webhookSpecs())),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/contract',
      tag: 'contract',
      auth: 'public',
      summary: 'Compact contract summary',
      response: { 200: ContractSummary },
      handler: () => ({
        ok: true,
        version: SERVICE_VERSION,
        openapi: '3.1.0',
        openapiUrl: '/openapi.json',
        routeCount: table().length,
        implementedCount: table().filter((r) => r.handler).length,
        tags: [...new Set(table().map((r) => r.tag))],
        transports: TRANSPORTS,
        errorCodes: ERROR_CODES,
        exportFormats: EXPORT_FORMATS,
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/manifest',
      tag: 'contract',
      auth: 'public',
      summary: 'Domains, transports and version',
      response: { 200: Manifest },
      handler: () => ({
        ok: true,
        name: 'awp',
        version: SERVICE_VERSION,
        domains: [...DOMAIN_NAMES],
        transports: [...TRANSPORTS],
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/protocol-map',
      tag: 'contract',
      auth: 'public',
      summary: 'Every endpoint with its domain, method, auth and schema refs',
      response: { 200: ProtocolMap },
      handler: () => ({
        ok: true,
        version: SERVICE_VERSION,
        routes: table().map((r) => ({
          method: r.method,
          path: r.path,
          tag: r.tag,
          domain: r.domain ?? null,
          auth: r.auth,
          scopes: r.scopes ?? [],
          implemented: Boolean(r.handler),
          schemaRefs: {
            body: (r.body as { $id?: string } | undefined)?.$id ?? null,
            response: Object.fromEntries(
              Object.entries(r.response ?? {}).map(([s, sch]) => [s, (sch as { $id?: string }).$id ?? null]),
            ),
          },
        })),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/handshake',
      tag: 'contract',
      auth: 'bearer',
      summary: 'Check domain and transport compatibility',
      body: Handshake,
      response: { 200: HandshakeResult },
      description:
        "compatible: every requested domain is one of the manifest's and the transport is compatible: the " +
        'service serves it (its endpoint is in the route table with a handler) and the calling token may use ' +
        'it.',
      handler: ({ body, principal }) => {
        const known = new Set<string>(DOMAIN_NAMES);
        const supported = body.domains.filter((d) => known.has(d));
        const unsupported = body.domains.filter((d) => !known.has(d));
        const transports = TRANSPORTS.map((name) => ({
          name,
          served: name === 'http' || table().some((r) => r.transport === name && Boolean(r.handler)),
          allowed: !principal.transports || principal.transports.includes(name),
          entryPoint: ENTRY_POINTS[name],
        }));
        const asked = transports.find((t) => t.name === body.transport)!;
        const transportCompatible = asked.served && asked.allowed;
        return {
          ok: true,
          compatible: unsupported.length === 0 && transportCompatible,
          domains: supported,
          unsupportedDomains: unsupported,
          transport: body.transport,
          transportCompatible,
          transports,
          version: SERVICE_VERSION,
          contractRef: `awp:contract:${SERVICE_VERSION}#v1`,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/schemas',
      tag: 'contract',
      auth: 'public',
      summary: 'Catalog of JSON Schemas keyed by schema id',
      response: { 200: SchemaCatalog },
      handler: () => {
        const schemas = schemaCatalog(table());
        return { ok: true, count: Object.keys(schemas).length, schemas };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/schemas/{schemaId}',
      tag: 'contract',
      auth: 'public',
      summary: 'One JSON Schema',
      params: Type.Object({ schemaId: Id('Schema id as listed by /v1/schemas') }),
      response: { 200: OneSchema },
      handler: ({ params }) => {
        const catalog = schemaCatalog(table());
        // Own keys only: `__proto__` or `constructor` would otherwise find Object.prototype's members.
        const schema = Object.hasOwn(catalog, params.schemaId) ? catalog[params.schemaId] : undefined;
        if (!schema) throw notFound(`Schema ${params.schemaId}`);
        return {
          ok: true,
          schemaId: params.schemaId,
          schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: params.schemaId, ...schema },
        };
      },
    }),
  ];
}
