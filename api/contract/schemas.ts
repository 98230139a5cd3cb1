import { Type } from '@sinclair/typebox';
import { AgentCardV03, AgentCardV1 } from '../../jobs/agents/card-schemas.js';
import { AnyObject, Ok, StringEnum } from '../../shared/schemas/common.js';

/**
 * What the contract, runtime and transport routes answer. They describe the service itself, so most of their content
 * is open (a document, a catalog): the fields a client reads first are typed.
 */
const Open = { additionalProperties: true };
const Checks = Type.Record(Type.String(), StringEnum(['up', 'down'] as const));

export const OpenApiDocument = Type.Object(
  { openapi: Type.Literal('3.1.0'), info: AnyObject, paths: AnyObject, components: AnyObject },
  { $id: 'OpenApiDocument', ...Open, description: 'This OpenAPI 3.1 document' },
);

export const ContractSummary = Ok(
  {
    version: Type.String(),
    openapi: Type.String(),
    openapiUrl: Type.String(),
    routeCount: Type.Integer(),
    implementedCount: Type.Integer(),
    tags: Type.Array(Type.String()),
    transports: Type.Array(Type.String()),
    errorCodes: Type.Array(Type.String()),
    exportFormats: Type.Array(Type.String()),
  },
  'ContractSummary',
);

export const ProtocolMap = Ok(
  {
    version: Type.String(),
    routes: Type.Array(
      Type.Object({
        method: Type.String(),
        path: Type.String(),
        tag: Type.String(),
        domain: Type.Union([Type.String(), Type.Null()]),
        auth: StringEnum(['public', 'bearer', 'sandboxOrBearer'] as const),
        scopes: Type.Array(Type.String()),
        implemented: Type.Boolean(),
        schemaRefs: Type.Object({
          body: Type.Union([Type.String(), Type.Null()]),
          response: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()])),
        }),
      }),
    ),
  },
  'ProtocolMap',
);

export const SchemaCatalog = Ok(
  { count: Type.Integer(), schemas: Type.Record(Type.String(), AnyObject, { description: 'JSON Schemas by $id' }) },
  'SchemaCatalog',
);
export const OneSchema = Ok({ schemaId: Type.String(), schema: AnyObject }, 'OneSchema');

export const RuntimeSummary = Ok(
  {
    version: Type.String(),
    node: Type.String(),
    uptimeSec: Type.Integer(),
    queuePrefix: Type.String(),
    workerQueues: Type.String(),
    limits: Type.Record(Type.String(), Type.Number()),
    features: Type.Record(Type.String(), Type.Boolean()),
  },
  'RuntimeSummary',
);
export const ApiStatus = Ok(
  {
    status: StringEnum(['operational', 'degraded'] as const),
    version: Type.String(),
    checks: Checks,
    time: Type.String({ format: 'date-time' }),
  },
  'ApiStatus',
);

/** GET /.well-known/agent-card.json: the 1.0 card with `A2A-Version: 1.0`, else the 0.3 card. */
export const ServiceAgentCard = Type.Union([AgentCardV1, AgentCardV03], { $id: 'ServiceAgentCard' });

export const A2AContract = Ok(
  {
    contract: Type.String(),
    statuses: Type.Array(Type.String()),
    terminal: Type.Array(Type.String()),
    transitions: Type.Record(Type.String(), Type.Array(Type.String())),
    kinds: Type.Array(Type.String()),
    schemas: Type.Object({ create: AnyObject, update: AnyObject, envelope: AnyObject }),
    transport: Type.Object({ agentCard: Type.String(), jsonRpc: Type.String() }, Open),
  },
  'A2AEnvelopeContract',
);

/** The answer of POST /mcp and POST /a2a (a streaming A2A method answers text/event-stream instead). */
export const JsonRpcResponse = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([Type.String(), Type.Integer(), Type.Null()]),
    result: Type.Optional(Type.Unknown()),
    error: Type.Optional(Type.Object({ code: Type.Integer(), message: Type.String() }, Open)),
  },
  { $id: 'JsonRpcResponse', ...Open },
);
