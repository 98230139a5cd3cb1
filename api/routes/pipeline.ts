import type { Deps } from '../../shared/deps.js';
import { Backpressure, notImplemented } from '../../shared/errors.js';
import { assertScopes } from '../../shared/auth/scopes.js';
import { admitWorkflowRequest, giveBackWorkflowRequest } from '../../jobs/accounts/workflow-allowance.js';
import { EmptyBody } from '../../shared/schemas/common.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { assertValid } from '../../shared/validation.js';
import type { AnyRoute, RouteInput } from '../../shared/http/route-spec.js';

/**
 * The path every call of a route takes, whatever carried it: an HTTP request
 * (mount.ts), an MCP tool call or an A2A message (api/transports). One
 * function per stage, so HTTP can claim its Idempotency-Key between
 * validation and the handler; the transports run them back to back
 * (`invokeRoute`). The burst rate limit is charged per HTTP request by its
 * middleware, and a transport request carries one protocol message.
 */

/** What a caller is: who, and where the call came from. */
export type CallContext = Omit<RouteInput<unknown, unknown, unknown>, 'body' | 'params' | 'query'>;

/** Input as it arrived, not yet checked. */
export interface RawInput {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/**
 * Params, query and body checked against the route's schemas (400 naming the fields), then the 501 of a route not built
 * yet.
 */
export function validateInput(
  spec: AnyRoute,
  raw: RawInput,
): { params: Record<string, unknown>; query: Record<string, unknown>; body: unknown } {
  const params = spec.params ? assertValid(spec.params, { ...raw.params }, 'params') : { ...raw.params };
  const query = spec.query ? assertValid(spec.query, { ...raw.query }, 'query') : {};
  const bodySchema = spec.body ?? (spec.method === 'GET' ? undefined : EmptyBody);
  const body = bodySchema ? assertValid(bodySchema, raw.body ?? {}, 'body') : undefined;
  if (!spec.handler) {
    throw notImplemented(
      `${spec.method} ${spec.path} is declared in the contract but not implemented ` +
        `yet${spec.pendingIssue ? ` (issue ${spec.pendingIssue})` : ''}`,
    );
  }
  return { params: params as Record<string, unknown>, query: query as Record<string, unknown>, body };
}

/**
 * The workflow allowance and monthly quota (counted once the input is valid), then the handler. A request the handler
 * refuses for load (429/503 Backpressure: nothing of it was accepted) gets back what it was counted.
 */
export async function runHandler(spec: AnyRoute, input: RouteInput<any, any, any>, deps: Deps): Promise<unknown> {
  const taken = spec.countsAsWorkflow && input.principal ? await admitWorkflowRequest(deps, input.principal) : null;
  try {
    return await spec.handler!(input, deps);
  } catch (err) {
    if (err instanceof Backpressure) await giveBackWorkflowRequest(deps, taken);
    throw err;
  }
}

/**
 * A route called by a transport on behalf of an authenticated principal:
 * scopes, validation, allowance and quota, handler; the same checks, in the
 * same order, as over HTTP. Returns what the handler returned (data, a Reply).
 */
export async function invokeRoute(
  spec: AnyRoute,
  raw: RawInput,
  call: CallContext & { principal: Principal },
  deps: Deps,
): Promise<unknown> {
  if (spec.auth !== 'public') assertScopes(call.principal, spec.scopes);
  const input = validateInput(spec, raw);
  return runHandler(spec, { ...call, ...input }, deps);
}
