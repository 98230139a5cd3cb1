import { Type } from '@sinclair/typebox';
import { AppError, notFound } from '../../shared/errors.js';
import type { Health } from '../../shared/health.js';
import { DOMAIN_QUEUES } from '../../shared/queues.js';
import { SERVICE_VERSION } from '../../shared/version.js';
import { Id, Ok } from '../../shared/schemas/common.js';
import { buildOpenApi, collect } from '../contract/openapi.js';
import { ALL_ROUTES } from './index.js';
import { TEMPLATES } from '../../jobs/workflows/templates.js';
import { defineRoute } from './route-spec.js';

export const TRANSPORTS = ['http', 'mcp', 'a2a'] as const;
const startedAt = Date.now();

const Health = Ok({ version: Type.String(), contractCount: Type.Integer(), checks: Type.Object({ postgres: Type.String(), redis: Type.String() }) }, 'Health');
const Readiness = Ok({ checks: Type.Object({ postgres: Type.String(), redis: Type.String() }) }, 'Readiness');
const Manifest = Ok({ name: Type.String(), version: Type.String(), domains: Type.Array(Type.String()), transports: Type.Array(Type.String()) }, 'Manifest');
const Handshake = Type.Object(
  {
    domains: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 50 }),
    clientId: Type.Optional(Type.String({ maxLength: 200 })),
    transport: Type.Union(TRANSPORTS.map((t) => Type.Literal(t)), { default: 'http' }),
  },
  { $id: 'HandshakeRequest' },
);
const HandshakeResult = Ok(
  {
    compatible: Type.Boolean(),
    domains: Type.Array(Type.String(), { description: 'Requested domains this service serves' }),
    unsupportedDomains: Type.Array(Type.String()),
    transport: Type.String(),
    version: Type.String(),
    contractRef: Type.String(),
  },
  'HandshakeResult',
);

/** 503 naming what is down, with every check in `details`. */
function failIfDown(checks: Health): void {
  const down = Object.entries(checks).filter(([, v]) => v === 'down').map(([k]) => k);
  if (down.length > 0) throw new AppError('unavailable', `Dependency down: ${down.join(', ')}`, { checks });
}

/** Every named schema in the route table, keyed by `$id`. */
export function schemaCatalog(): Record<string, unknown> {
  const components: Record<string, Record<string, unknown>> = {};
  for (const r of ALL_ROUTES) {
    for (const s of [r.body, r.params, r.query, ...Object.values(r.response ?? {})]) if (s) collect(s, components);
  }
  for (const t of TEMPLATES) collect(t.input, components);
  return components;
}

let openApiCache: Record<string, unknown> | undefined;

export const routes = [
  defineRoute({
    method: 'GET', path: '/healthz', tag: 'runtime', auth: 'public', summary: 'Health for load balancers, from memory',
    description: 'Postgres and Redis reachability as last checked in the background (at most 1 s old, 2 s while a dependency does not answer); no dependency round trip on the request. Answers 503 unavailable naming the dependency that is down. Exempt from the rate limit.',
    response: { 200: Health },
    handler: async (_input, deps) => {
      const { checks } = await deps.health.current();
      failIfDown(checks);
      return { ok: true, version: SERVICE_VERSION, contractCount: ALL_ROUTES.length, checks };
    },
  }),
  defineRoute({
    method: 'GET', path: '/readyz', tag: 'runtime', auth: 'public', summary: 'Readiness, checked live',
    description: 'Pings Postgres and Redis now (1 s each): for a deploy step or an operator who must know the current answer; concurrent calls share one check. Exempt from the rate limit, which needs Redis. Load balancers should probe /healthz.',
    response: { 200: Readiness },
    handler: async (_input, deps) => {
      const checks = await deps.health.checks.check();
      failIfDown(checks);
      return { ok: true, checks };
    },
  }),
  defineRoute({
    method: 'GET', path: '/runtime', tag: 'runtime', auth: 'bearer', summary: 'Runtime configuration summary (no secrets)',
    handler: async (_input, deps) => {
      const c = deps.config;
      return {
        ok: true,
        version: SERVICE_VERSION,
        node: process.version,
        uptimeSec: Math.round((Date.now() - startedAt) / 1000),
        queuePrefix: c.QUEUE_PREFIX,
        workerQueues: c.WORKER_QUEUES ?? 'all',
        limits: { ratePerMinute: c.RATE_LIMIT_PER_MINUTE, unverifiedRequests: c.UNVERIFIED_REQUEST_LIMIT, builderMonthlyRuns: c.BUILDER_MONTHLY_RUNS, maxBodyBytes: c.MAX_BODY_BYTES, runSyncWaitMs: c.RUN_SYNC_WAIT_MS, stepTimeoutMs: c.STEP_TIMEOUT_MS },
        features: { smtp: Boolean(c.SMTP_URL), llmRouter: Boolean(c.LLM_BASE_URL && c.LLM_MODEL), privateEgress: c.AWP_ALLOW_PRIVATE_EGRESS },
      };
    },
  }),
  defineRoute({
    method: 'GET', path: '/v1/status', tag: 'runtime', auth: 'public', summary: 'Public API status',
    handler: async (_input, deps) => {
      const { checks } = await deps.health.current();
      const degraded = Object.values(checks).includes('down');
      return { ok: true, status: degraded ? 'degraded' : 'operational', version: SERVICE_VERSION, checks, time: new Date().toISOString() };
    },
  }),
  defineRoute({
    method: 'GET', path: '/openapi.json', tag: 'contract', auth: 'public', summary: 'The OpenAPI 3.1 document',
    handler: (_input, deps) => (openApiCache ??= buildOpenApi(ALL_ROUTES, deps.config.PUBLIC_BASE_URL)),
  }),
  defineRoute({
    method: 'GET', path: '/v1/contract', tag: 'contract', auth: 'public', summary: 'Compact contract summary',
    handler: () => ({
      ok: true,
      version: SERVICE_VERSION,
      openapi: '3.1.0',
      openapiUrl: '/openapi.json',
      routeCount: ALL_ROUTES.length,
      implementedCount: ALL_ROUTES.filter((r) => r.handler).length,
      tags: [...new Set(ALL_ROUTES.map((r) => r.tag))],
      transports: TRANSPORTS,
      errorCodes: ['invalidPayload', 'unauthorized', 'forbidden', 'notFound', 'methodNotAllowed', 'conflict', 'payloadTooLarge', 'policyViolation', 'rateLimitExceeded', 'quotaExceeded', 'internalError', 'notImplemented', 'unavailable'],
      exportFormats: ['service/v1', 'ledger/v1'],
    }),
  }),
  defineRoute({
    method: 'GET', path: '/v1/manifest', tag: 'contract', auth: 'public', summary: 'Domains, transports and version',
    response: { 200: Manifest },
    handler: () => ({ ok: true, name: 'awp', version: SERVICE_VERSION, domains: [...DOMAIN_QUEUES], transports: [...TRANSPORTS] }),
  }),
  defineRoute({
    method: 'GET', path: '/v1/protocol-map', tag: 'contract', auth: 'public', summary: 'Every endpoint with its domain, method, auth and schema refs',
    handler: () => ({
      ok: true,
      version: SERVICE_VERSION,
      routes: ALL_ROUTES.map((r) => ({
        method: r.method,
        path: r.path,
        tag: r.tag,
        domain: r.domain ?? null,
        auth: r.auth,
        scopes: r.scopes ?? [],
        implemented: Boolean(r.handler),
        schemaRefs: {
          body: (r.body as { $id?: string } | undefined)?.$id ?? null,
          response: Object.fromEntries(Object.entries(r.response ?? {}).map(([s, sch]) => [s, (sch as { $id?: string }).$id ?? null])),
        },
      })),
    }),
  }),
  defineRoute({
    method: 'POST', path: '/v1/handshake', tag: 'contract', auth: 'bearer', summary: 'Check domain and transport compatibility',
    body: Handshake, response: { 200: HandshakeResult },
    handler: ({ body }) => {
      const known = new Set<string>(DOMAIN_QUEUES);
      const supported = body.domains.filter((d) => known.has(d));
      const unsupported = body.domains.filter((d) => !known.has(d));
      return { ok: true, compatible: unsupported.length === 0, domains: supported, unsupportedDomains: unsupported, transport: body.transport, version: SERVICE_VERSION, contractRef: `awp:contract:${SERVICE_VERSION}#v1` };
    },
  }),
  defineRoute({
    method: 'GET', path: '/v1/schemas', tag: 'contract', auth: 'public', summary: 'Catalog of JSON Schemas keyed by schema id',
    handler: () => {
      const schemas = schemaCatalog();
      return { ok: true, count: Object.keys(schemas).length, schemas };
    },
  }),
  defineRoute({
    method: 'GET', path: '/v1/schemas/{schemaId}', tag: 'contract', auth: 'public', summary: 'One JSON Schema',
    params: Type.Object({ schemaId: Id('Schema id as listed by /v1/schemas') }),
    handler: ({ params }) => {
      const schema = schemaCatalog()[params.schemaId];
      if (!schema) throw notFound(`Schema ${params.schemaId}`);
      return { ok: true, schemaId: params.schemaId, schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: params.schemaId, ...schema } };
    },
  }),
];

