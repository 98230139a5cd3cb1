import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';
import { AwpError } from './errors.js';
import { paginate } from './paginate.js';
import { retryingFetch, type RetryOptions } from './retry.js';
import { followEvents, type RunEvent, type StreamOptions } from './stream.js';
import { verifyWebhook } from './webhooks.js';

export type Schemas = components['schemas'];
export type SubmitRequest = Omit<Schemas['OrchestratorRequest'], 'stream'>;
/** A run that rested within the sync wait: its status, results and proof card. */
export type RunResult = Schemas['OrchestratorResult'];
/** A run accepted and still going (`202`): follow it with `runs.stream` or `runs.wait`. */
export type RunAccepted = Schemas['RunAccepted'];
export type RunDetail = Schemas['RunDetailResponse']['run'];
export type RunSummary = Schemas['RunSummary'];
export type RunListQuery = Omit<NonNullable<paths['/v1/runs']['get']['parameters']['query']>, 'cursor'>;
export type ResumeRequest = Schemas['RunResumeRequest'];
export type RunResumed = Schemas['RunResumed'];
export type RunCanceled = Schemas['RunCanceled'];

export interface AwpClientOptions {
  /** Where the service answers, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** An API token (`awp_…`); without one only public routes and sandbox runs answer. */
  token?: string;
  /** Sends an `Idempotency-Key` (a random UUID) with every POST that has none (default true). */
  idempotencyKeys?: boolean;
  retry?: RetryOptions;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

export interface SubmitOptions {
  /** `sync` (default): wait until the run rests (up to the service's RUN_SYNC_WAIT_MS). `async`: answer at once. */
  mode?: 'sync' | 'async';
  idempotencyKey?: string;
  signal?: AbortSignal;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a 2xx answer, or the AwpError its envelope describes. */
async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw AwpError.from(response, error);
  return data as T;
}

/** Whether a submission's answer is the rested run (`200`) rather than an acceptance (`202`). */
export function isRunResult(answer: RunResult | RunAccepted): answer is RunResult {
  return 'proofCard' in answer;
}

export function createAwpClient(options: AwpClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const send = retryingFetch(options.fetch ?? globalThis.fetch, options.retry);
  const authHeaders: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  const api: Client<paths> = createClient<paths>({ baseUrl, fetch: send, headers: authHeaders });
  if (options.idempotencyKeys !== false)
    api.use({
      // One key per call, set before the retry loop: a retried POST carries the key of its first attempt.
      onRequest({ request }) {
        if (request.method === 'POST' && !request.headers.has('idempotency-key'))
          request.headers.set('idempotency-key', crypto.randomUUID());
        return request;
      },
    });

  const keyHeader = (key?: string): Record<string, string> => (key ? { 'idempotency-key': key } : {});

  const runs = {
    /** Submits a run. Sync answers the rested run (or `202` when it outlasts the wait); async answers `202` at once. */
    submit(body: SubmitRequest, opts: SubmitOptions = {}): Promise<RunResult | RunAccepted> {
      const prefer: Record<string, string> = opts.mode === 'async' ? { prefer: 'respond-async' } : {};
      return unwrap(
        api.POST('/v1/orchestrator/run', {
          body,
          headers: { ...prefer, ...keyHeader(opts.idempotencyKey) },
          signal: opts.signal,
        }),
      );
    },
    get: async (runId: string): Promise<RunDetail> =>
      (await unwrap(api.GET('/v1/runs/{runId}', { params: { path: { runId } } }))).run,
    /** One page of runs; `list` iterates them all. */
    page: (query: RunListQuery & { cursor?: string } = {}) => unwrap(api.GET('/v1/runs', { params: { query } })),
    /** Every run matching the filters, newest first, fetched a page (`limit`) at a time. */
    list(query: RunListQuery = {}): AsyncGenerator<RunSummary> {
      return paginate(async (cursor) => {
        const page = await runs.page({ ...query, ...(cursor ? { cursor } : {}) });
        return { items: page.runs, nextCursor: page.nextCursor };
      });
    },
    /** Follows the run's events (NDJSON or SSE) until `final`, resuming after a dropped connection. */
    stream(runId: string, opts: StreamOptions = {}): AsyncGenerator<RunEvent> {
      return followEvents((lastEventId, format, signal) => {
        const headers: Record<string, string> = {
          ...authHeaders,
          accept: format === 'sse' ? 'text/event-stream' : 'application/x-ndjson',
        };
        if (lastEventId > 0) headers['last-event-id'] = String(lastEventId);
        const url = `${baseUrl}/v1/runs/${encodeURIComponent(runId)}/events`;
        return send(new Request(url, { headers, ...(signal ? { signal } : {}) }));
      }, opts);
    },
    /** Follows the run until its next `final` event and answers that result (the run resting: done or waiting). */
    async wait(runId: string, opts: StreamOptions = {}): Promise<RunResult> {
      for await (const ev of runs.stream(runId, opts)) {
        if (ev.type === 'final') return (ev as RunEvent & { result: RunResult }).result;
      }
      // The stream ended without one after `opts.after`: the run rested before; its detail holds the result.
      return (await runs.get(runId)).result as RunResult;
    },
    /** Answers the run's open waitpoint (a choice, a proxy outcome, an approval); the run goes on in a new segment. */
    resume: (runId: string, body: ResumeRequest, opts: { idempotencyKey?: string } = {}): Promise<RunResumed> =>
      unwrap(
        api.POST('/v1/runs/{runId}/resume', {
          params: { path: { runId } },
          body,
          headers: keyHeader(opts.idempotencyKey),
        }),
      ),
    cancel: (runId: string): Promise<RunCanceled> =>
      unwrap(api.POST('/v1/runs/{runId}/cancel', { params: { path: { runId } }, body: {} })),
  };

  const tokens = {
    list: async () => (await unwrap(api.GET('/v1/tokens'))).tokens,
    create: (body: Schemas['TokenCreate']) => unwrap(api.POST('/v1/tokens', { body })),
    revoke: (tokenId: string) =>
      unwrap(api.POST('/v1/tokens/{tokenId}/revoke', { params: { path: { tokenId } }, body: {} })),
  };

  const events = {
    /** Records an integration event; it fans out to the subscriptions it matches. */
    record: (body: Schemas['EventCreate']) => unwrap(api.POST('/v1/events', { body })),
    /** An event with its delivery attempts. */
    get: (eventId: string) => unwrap(api.GET('/v1/events/{eventId}', { params: { path: { eventId } } })),
  };

  return {
    /** The typed openapi-fetch client for every route of the service (answers `{ data, error, response }`). */
    api,
    runs,
    tokens,
    events,
    proofCards: {
      get: (cardId: string) => unwrap(api.GET('/v1/audit/proofCards/{cardId}', { params: { path: { cardId } } })),
    },
    webhooks: { verify: verifyWebhook },
    /** Unwraps any `api` call: its data, or the AwpError of its envelope. */
    unwrap,
  };
}

export type AwpClient = ReturnType<typeof createAwpClient>;
