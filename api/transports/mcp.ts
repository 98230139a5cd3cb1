import { Readable } from 'node:stream';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Deps } from '../../shared/deps.js';
import { AppError, invalidPayload } from '../../shared/errors.js';
import { Reply, type AnyRoute } from '../../shared/http/route-spec.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { SERVICE_VERSION } from '../../shared/version.js';
import { toEnvelope } from '../middleware/errors.js';
import { invokeRoute, type CallContext } from '../routes/pipeline.js';
import { mayCall, routeInput, toolDefinition, toolRoutes } from './mcp-tools.js';
import { publicBase } from './public-base.js';

type Call = CallContext & { principal: Principal };

/**
 * The MCP SDK, loaded on the first /mcp request: it weighs about 16 MB, which an API that is never asked over MCP does
 * not carry.
 */
let loading:
  | Promise<
      typeof import('@modelcontextprotocol/sdk/server/index.js') &
        typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js') &
        typeof import('@modelcontextprotocol/sdk/types.js')
    >
  | undefined;
const mcpSdk = () =>
  (loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([server, transport, types]) => ({ ...server, ...transport, ...types })));

const INSTRUCTIONS =
  'Each tool is one route of the awp HTTP API (its description names it) and answers what that route ' +
  'answers, as structuredContent. ' +
  'orchestrator.run starts a run and waits for it to rest; runs.get, runs.events, runs.resume and ' +
  'runs.cancel act on it by runId, the same id the HTTP API uses.';

function errorResult(err: unknown, call: Call, deps: Deps): CallToolResult {
  const { status, body } = toEnvelope(err, call.requestId);
  if (status >= 500) deps.log.error({ err, requestId: call.requestId }, 'mcp tool call failed');
  return {
    isError: true,
    content: [{ type: 'text', text: `${body.error}: ${body.message}` }],
    structuredContent: body,
  };
}

/**
 * One tools/call: the route's own pipeline (scopes, validation, allowance and
 * quota, handler). A business error is a result with `isError` and the
 * service's error envelope, so the model reading it can correct itself; only
 * an unknown tool is a protocol error (-32602).
 */
async function callTool(
  tools: Map<string, AnyRoute>,
  name: string,
  args: Record<string, unknown>,
  call: Call,
  deps: Deps,
): Promise<CallToolResult> {
  const route = tools.get(name);
  if (!route) {
    const { McpError, ErrorCode } = await mcpSdk();
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  }
  try {
    // A tool answers once: the NDJSON stream of stream: true belongs to runs.events here.
    if (args.stream === true)
      throw invalidPayload('stream: true is not available over MCP; follow the run with the runs.events tool');
    const input = routeInput(route, args);
    // Runs started over MCP say so, unless the caller named a channel.
    const bodyProperties = (route.body as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
    if ('channel' in bodyProperties) (input.body as Record<string, unknown>).channel ??= 'mcp';
    const out = await invokeRoute(
      route,
      input,
      { ...call, headers: { ...call.headers, accept: 'application/json', prefer: undefined } },
      deps,
    );
    const reply = out instanceof Reply ? out : new Reply(200, out);
    if (reply.body instanceof Readable) {
      reply.body.destroy();
      throw invalidPayload(`${name} answers with a stream, which a tool result cannot carry`);
    }
    const structured = (reply.body ?? { ok: true }) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  } catch (err) {
    return errorResult(err, call, deps);
  }
}

/** A refusal of the SDK's transport (bad JSON-RPC, an unsupported protocol version) as the service's error envelope. */
async function refusal(res: Response): Promise<AppError> {
  const text = await res.text();
  let rpc: { error?: { code?: number; message?: string } } = {};
  try {
    rpc = JSON.parse(text);
  } catch {
    // not JSON: the status alone says what happened
  }
  const code =
    res.status === 405
      ? 'methodNotAllowed'
      : res.status === 413
        ? 'payloadTooLarge'
        : res.status === 404
          ? 'notFound'
          : 'invalidPayload';
  return new AppError(
    code,
    rpc.error?.message ?? `MCP transport refused the request (${res.status})`,
    rpc.error ? { jsonRpcError: rpc.error } : undefined,
  );
}

/**
 * POST /mcp, stateless Streamable HTTP with JSON responses: a fresh SDK
 * server and transport per request (no session to keep), which answer
 * initialize, ping, notifications (202), tools/list and tools/call. The body
 * was read and checked as JSON already (any Content-Type, as every route),
 * and the answer is JSON whatever the client also accepts, so the transport
 * is handed the parsed message with those two headers set to what it
 * expects; what it refuses leaves as the error envelope.
 */
export async function mcpAnswer(table: () => AnyRoute[], call: Call, body: unknown, deps: Deps): Promise<Reply> {
  const tools = toolRoutes(table());
  const { Server, ListToolsRequestSchema, CallToolRequestSchema, WebStandardStreamableHTTPServerTransport } =
    await mcpSdk();
  const server = new Server(
    { name: 'awp', version: SERVICE_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...tools.values()].filter((r) => mayCall(call.principal, r)).map(toolDefinition),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(tools, request.params.name, request.params.arguments ?? {}, call, deps),
  );
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    const headers = new Headers(
      Object.entries(call.headers).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    headers.set('accept', 'application/json, text/event-stream');
    headers.set('content-type', 'application/json');
    const res = await transport.handleRequest(
      new Request(`${publicBase(deps.config, call.origin)}/mcp`, { method: 'POST', headers }),
      { parsedBody: body },
    );
    if (res.status >= 400) throw await refusal(res);
    const text = await res.text();
    // A notification's 202 has no body; an empty string keeps Koa from turning it into 204.
    return new Reply(res.status, text ? JSON.parse(text) : '');
  } finally {
    await transport.close();
    await server.close();
  }
}
