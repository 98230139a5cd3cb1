import { Readable } from 'node:stream';
import { formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import type { Deps } from '../../shared/deps.js';
import { Reply, type AnyRoute } from '../../shared/http/route-spec.js';
import { agentCard, isLegacyVersion } from './a2a-card.js';
import { publicBase } from './public-base.js';
import { contextState, REFUSAL, RunTaskHandler, type A2ACall } from './a2a-handler.js';

type RpcId = string | number | null;
type MapError = (err: unknown) => unknown;

/** An HTTP-level refusal the handler met (401, 403, 429, 5xx) is thrown here, so it answers as it would over HTTP. */
function throwRefusal(context: ServerCallContext): void {
  const refusal = context.state.get(REFUSAL);
  if (refusal) throw refusal;
}

async function* sse(
  first: IteratorResult<unknown>,
  rest: AsyncIterator<unknown>,
  id: RpcId,
  mapError: MapError,
): AsyncGenerator<string> {
  try {
    if (!first.done) yield formatSSEEvent(first.value);
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield formatSSEEvent(next.value);
  } catch (err) {
    yield formatSSEErrorEvent({ jsonrpc: '2.0', id, error: mapError(err) } as never);
  } finally {
    await rest.return?.(undefined);
  }
}

/**
 * POST /a2a: one JSON-RPC call, A2A 1.0 (`SendMessage`, ...) or 0.3
 * (`message/send`, ...) as the `A2A-Version` header says (absent: 0.3), parsed
 * and answered by the SDK's own transport handlers over the run handler.
 * Streaming methods answer SSE once their first event exists, so a call
 * refused before it started is a plain answer, not a stream.
 */
export async function a2aAnswer(table: () => AnyRoute[], call: A2ACall, body: unknown, deps: Deps): Promise<unknown> {
  const base = publicBase(deps.config, call.origin);
  const version = call.headers['a2a-version']?.trim() || undefined;
  const legacy = isLegacyVersion(version);
  const mapError: MapError = legacy
    ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
    : JsonRpcTransportHandler.mapToJSONRPCError;
  const id = ((body as { id?: RpcId }).id ?? null) as RpcId;
  const context = new ServerCallContext({ requestedVersion: version ?? '0.3', state: contextState(call) });
  try {
    validateVersion(context.requestedVersion, agentCard(base), 'JSONRPC');
  } catch (err) {
    return { jsonrpc: '2.0', id, error: mapError(err) };
  }
  const handler = new RunTaskHandler(table, deps, base);
  const transport = legacy ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler);
  const out = await transport.handle(body as Record<string, unknown>, context);
  throwRefusal(context);
  if (!(out && typeof (out as AsyncGenerator)[Symbol.asyncIterator] === 'function')) return out;
  const events = (out as AsyncGenerator<unknown>)[Symbol.asyncIterator]();
  let first: IteratorResult<unknown>;
  try {
    first = await events.next();
  } catch (err) {
    throwRefusal(context);
    return { jsonrpc: '2.0', id, error: mapError(err) };
  }
  throwRefusal(context);
  return Reply.stream(Readable.from(sse(first, events, id, mapError)), 'text/event-stream', {
    'X-Accel-Buffering': 'no',
  });
}
