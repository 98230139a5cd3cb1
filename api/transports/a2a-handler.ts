import { createInterface } from 'node:readline';
import type { Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import {
  A2AError,
  ExtendedAgentCardNotConfiguredError,
  JsonRpcRequestMalformedError,
  JsonRpcTaskNotCancelableError,
  JsonRpcTaskNotFoundError,
  JsonRpcUnsupportedOperationError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { lastEventId } from '../../jobs/orchestrator/event-page.js';
import { followRun, waitForRest } from '../../jobs/orchestrator/follow.js';
import { runDetailFor } from '../../jobs/orchestrator/run-queries.js';
import { isTerminal, WAIT_STATUSES } from '../../jobs/orchestrator/run-state.js';
import type { RunEvent } from '../../shared/db/runs.js';
import type { Deps } from '../../shared/deps.js';
import { invalidPayload } from '../../shared/errors.js';
import { Reply, type AnyRoute } from '../../shared/http/route-spec.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { toEnvelope } from '../middleware/errors.js';
import { invokeRoute, type CallContext, type RawInput } from '../routes/pipeline.js';
import { agentCard } from './a2a-card.js';
import { eventUpdate, restUpdates, runTask, type RunDetail } from './a2a-task.js';

export type A2ACall = CallContext & { principal: Principal };
const CALL = 'awp.call';
/**
 * An error the HTTP layer answers (401, 403, 429, 5xx), kept here for the glue to throw instead of a JSON-RPC error.
 */
export const REFUSAL = 'awp.refusal';

export const contextState = (call: A2ACall) => new Map<string, unknown>([[CALL, call]]);
const callOf = (context: ServerCallContext) => context.state.get(CALL) as A2ACall;

/**
 * A service error as A2A sees it. Refusals the HTTP layer would give whatever
 * the protocol (no or a narrowed token, a missing scope, the starter
 * allowance, quota, rate limit, an outage) stay HTTP answers: they are kept
 * in the context for the glue to throw. The rest become the protocol's
 * errors, with the service's code in the ErrorInfo metadata (1.0) and in
 * `data` (0.3, which carries no ErrorInfo): a 404 is TaskNotFound, a 409 (a
 * finished run, a self-approval) refuses the operation, not the request, so
 * it is UnsupportedOperation (TaskNotCancelable for a cancel), and a 400/422
 * is RequestMalformed.
 */
function translate(
  err: unknown,
  context: ServerCallContext,
  deps: Deps,
  conflict: 'notCancelable' | 'unsupported',
): Error {
  if (err instanceof A2AError) return err;
  const call = callOf(context);
  const { status, body } = toEnvelope(err, call.requestId);
  if (status === 401 || status === 403 || status === 429 || status >= 500) {
    context.state.set(REFUSAL, err);
    return new UnsupportedOperationError(body.message);
  }
  const metadata: Record<string, string> = { awpError: body.error, requestId: call.requestId };
  if (body.details !== undefined) metadata.details = JSON.stringify(body.details);
  const options = {
    message: body.message,
    metadata,
    data: { error: body.error, requestId: call.requestId, details: body.details },
  };
  if (body.error === 'notFound') return new JsonRpcTaskNotFoundError(options);
  if (status === 409) {
    if (conflict === 'notCancelable') return new JsonRpcTaskNotCancelableError(options);
    return new JsonRpcUnsupportedOperationError(options);
  }
  return new JsonRpcRequestMalformedError(options);
}

/** Text parts joined as the request; data parts merged as the structured fields. */
function readMessage(message: Message | undefined): { text: string; data: Record<string, unknown> } {
  if (!message) throw invalidPayload('params.message is required');
  const texts: string[] = [];
  const data: Record<string, unknown> = {};
  for (const part of message.parts) {
    if (part.content?.$case === 'text') texts.push(part.content.value);
    else if (
      part.content?.$case === 'data' &&
      part.content.value &&
      typeof part.content.value === 'object' &&
      !Array.isArray(part.content.value)
    )
      Object.assign(data, part.content.value);
  }
  return { text: texts.join('\n').trim(), data };
}

const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/**
 * A2A over the run API: a task is a run, and each method is the route an
 * HTTP client would call for it (through the same pipeline: scopes,
 * validation, allowance, quota), then the run read back as a task.
 */
export class RunTaskHandler implements A2ARequestHandler {
  constructor(
    private readonly table: () => AnyRoute[],
    private readonly deps: Deps,
    private readonly base: string,
  ) {}

  private async invoke(
    call: A2ACall,
    method: string,
    path: string,
    raw: RawInput,
    headers: Record<string, string | undefined> = {},
  ): Promise<any> {
    const route = this.table().find((r) => r.method === method && r.path === path)!;
    const out = await invokeRoute(route, raw, { ...call, headers: { ...call.headers, ...headers } }, this.deps);
    return out instanceof Reply ? out.body : out;
  }

  private async guard<T>(
    context: ServerCallContext,
    conflict: 'notCancelable' | 'unsupported',
    fn: (call: A2ACall) => Promise<T>,
  ): Promise<T> {
    try {
      return await fn(callOf(context));
    } catch (err) {
      throw translate(err, context, this.deps, conflict);
    }
  }

  private detail(call: A2ACall, runId: string): Promise<RunDetail> {
    return runDetailFor(this.deps, call.principal.accountId, runId);
  }

  /**
   * Starts the run a message asks for: a message on a task answers that
   * run's waitpoint (a data part with itemId, action, approved, data); a data
   * part with `templateId` runs that template; anything else is the
   * orchestrator request (text as `request`, data parts as its other fields).
   */
  private async start(
    call: A2ACall,
    params: SendMessageRequest,
    immediate: boolean,
  ): Promise<{ runId: string; segment: number }> {
    const message = params.message;
    const { text, data } = readMessage(message);
    if (message!.taskId) {
      const { itemId, action, approved, data: inner, ...rest } = data;
      const body = defined({
        itemId,
        action,
        approved,
        data: { ...rest, ...(inner && typeof inner === 'object' ? inner : {}) },
      });
      const resumed = await this.invoke(call, 'POST', '/v1/runs/{runId}/resume', {
        params: { runId: message!.taskId },
        body,
      });
      if (!immediate)
        await waitForRest(this.deps, resumed.runId, this.deps.config.RUN_SYNC_WAIT_MS, resumed.segment, call.signal);
      return { runId: resumed.runId, segment: resumed.segment };
    }
    const { stream: _stream, ...fields } = data;
    const conversationId = message!.contextId || newId('ctx');
    const prefer = { prefer: immediate ? 'respond-async' : undefined };
    const out =
      typeof fields.templateId === 'string'
        ? await this.invoke(
            call,
            'POST',
            '/v1/workflows/templates/{templateId}/run',
            {
              params: { templateId: fields.templateId },
              body: { ...fields, conversationId, ...(text ? { request: text } : {}) },
            },
            prefer,
          )
        : await this.invoke(
            call,
            'POST',
            '/v1/orchestrator/run',
            { body: { channel: 'a2a', ...fields, request: text, conversationId } },
            prefer,
          );
    return { runId: out.runId, segment: 0 };
  }

  /**
   * The run's events from `after` as task updates, until its segment rests: then its artifacts and the status it rests
   * at.
   */
  private async *follow(call: A2ACall, run: RunDetail, after: number): AsyncGenerator<StreamResponse> {
    const ids = { taskId: run.runId, contextId: run.conversationId ?? run.runId };
    const stream = followRun(this.deps, run.runId, after, 'ndjson', call.signal);
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    try {
      for await (const line of lines) {
        const ev = JSON.parse(line) as RunEvent;
        if (ev.type === 'final') {
          yield* restUpdates(await this.detail(call, run.runId));
          return;
        }
        const update = eventUpdate(ids, ev);
        if (update) yield update;
      }
    } finally {
      lines.close();
      stream.destroy();
    }
  }

  async getAgentCard() {
    return agentCard(this.base);
  }

  async getAuthenticatedExtendedAgentCard(): Promise<never> {
    throw new ExtendedAgentCardNotConfiguredError();
  }

  sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Task> {
    return this.guard(context, 'unsupported', async (call) => {
      const { runId } = await this.start(call, params, params.configuration?.returnImmediately === true);
      return runTask(await this.detail(call, runId), params.configuration?.historyLength);
    });
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const { call, run, after } = await this.guard(context, 'unsupported', async (call) => {
      const taskId = params.message?.taskId;
      // A follow-up streams what happens after the answer, not the run's past.
      const from = taskId ? await lastEventId(this.deps, call.principal.accountId, taskId) : 0;
      const { runId } = await this.start(call, params, true);
      return { call, run: await this.detail(call, runId), after: from };
    });
    yield { payload: { $case: 'task', value: runTask(run, params.configuration?.historyLength) } };
    yield* this.follow(call, run, after);
  }

  getTask(params: { id: string; historyLength?: number }, context: ServerCallContext): Promise<Task> {
    return this.guard(context, 'unsupported', async (call) => {
      const { run } = await this.invoke(call, 'GET', '/v1/runs/{runId}', { params: { runId: params.id } });
      return runTask(run, params.historyLength);
    });
  }

  cancelTask(params: { id: string }, context: ServerCallContext): Promise<Task> {
    return this.guard(context, 'notCancelable', async (call) => {
      await this.invoke(call, 'POST', '/v1/runs/{runId}/cancel', { params: { runId: params.id }, body: {} });
      return runTask(await this.detail(call, params.id));
    });
  }

  async *resubscribe(params: { id: string }, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const { call, run, after } = await this.guard(context, 'unsupported', async (call) => {
      const from = await lastEventId(this.deps, call.principal.accountId, params.id);
      const { run } = await this.invoke(call, 'GET', '/v1/runs/{runId}', { params: { runId: params.id } });
      return { call, run: run as RunDetail, after: from };
    });
    if (isTerminal(run.status))
      throw new UnsupportedOperationError(
        `Task ${run.runId} is ${run.status}; a finished task has no updates to follow`,
      );
    yield { payload: { $case: 'task', value: runTask(run) } };
    // A waiting run moves only when answered (by SendMessage on this task), so there is nothing to follow yet.
    if (!WAIT_STATUSES.includes(run.status)) yield* this.follow(call, run, after);
  }

  async listTasks(): Promise<never> {
    throw new UnsupportedOperationError('ListTasks is not offered over A2A; GET /v1/runs lists the same runs');
  }

  async createTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  getTaskPushNotificationConfig = this.createTaskPushNotificationConfig;
  listTaskPushNotificationConfigs = this.createTaskPushNotificationConfig;
  deleteTaskPushNotificationConfig = this.createTaskPushNotificationConfig;
}
