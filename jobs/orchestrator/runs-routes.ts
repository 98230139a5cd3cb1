import { followRun } from './follow.js';
import { resumeRun } from './submit.js';
import { cancelRun } from './run-control.js';
import { findRun, runDetailFor, runPage } from './run-queries.js';
import { runEventsPage } from './event-page.js';
import { invalidPayload } from '../../shared/errors.js';
import {
  RunCanceled,
  RunDetailResponse,
  RunEventsPage,
  RunListQuery,
  RunPage,
  RunResume,
  RunResumed,
  RunsStreamEvent,
} from './schemas.js';
import { followAccountRuns, RUNS_STREAM_EVENTS } from './runs-stream.js';
import { MAX_EVENT_ID, RunEventsQuery } from './run-schemas.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';

const r = routeGroup('orchestrator', { read: ['runs:read'], write: ['runs:write'] });

export const routes = [
  r.get('/v1/runs', 'List runs (filters: status, domain, conversationId, time range; cursor pagination)', {
    query: RunListQuery,
    mcpTool: 'runs.list',
    response: { 200: RunPage },
    handler: async ({ query, principal }, deps) => {
      return { ok: true, ...(await runPage(deps, principal.accountId, { ...query, limit: query.limit ?? 50 })) };
    },
  }),
  r.get('/v1/runs/events', "The account's runs, live (Server-Sent Events): runs made and runs whose status moved", {
    description:
      `Events: ${RUNS_STREAM_EVENTS.join(', ')}. \`ready\` carries the newest runs (at most 50); \`run.created\` a ` +
      'run made since, `run.changed` a run whose status moved (with `previousStatus`). The caller’s account only. ' +
      'A signed-in dashboard reads it with its session cookie. A run’s own events are /v1/runs/{runId}/events.',
    streams: true,
    response: { 200: RunsStreamEvent },
    handler: ({ principal, signal }, deps) =>
      Reply.stream(followAccountRuns(deps, principal.accountId, signal), 'text/event-stream'),
  }),
  r.get('/v1/runs/{runId}', 'A run: status, route, steps with timings, result, proof card ref, waitpoint, error', {
    mcpTool: 'runs.get',
    response: { 200: RunDetailResponse },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      run: await runDetailFor(deps, principal.accountId, params.runId),
    }),
  }),
  r.get(
    '/v1/runs/{runId}/events',
    'Run events as NDJSON, SSE with Accept: text/event-stream, or one JSON page with Accept: ' +
      'application/json; resumable with Last-Event-ID or ?after=',
    {
      query: RunEventsQuery,
      streams: true,
      mcpTool: 'runs.events',
      response: { 200: RunEventsPage },
      handler: async ({ params, query, principal, headers, signal }, deps) => {
        const lastEventId = headers['last-event-id'];
        if (lastEventId !== undefined && !(/^\d{1,10}$/.test(lastEventId) && Number(lastEventId) <= MAX_EVENT_ID))
          throw invalidPayload(`Last-Event-ID must be an event id (integer 0..${MAX_EVENT_ID})`);
        const after = Math.max(query.after ?? 0, lastEventId ? Number(lastEventId) : 0);
        const accept = headers.accept ?? '';
        if (/application\/json/.test(accept) && !/event-stream|ndjson/.test(accept)) {
          return {
            ok: true,
            ...(await runEventsPage(deps, principal.accountId, params.runId, after, query.limit ?? 100)),
          };
        }
        await findRun(deps, principal.accountId, params.runId);
        const sse = /text\/event-stream/.test(accept);
        return Reply.stream(
          followRun(deps, params.runId, after, sse ? 'sse' : 'ndjson', signal),
          sse ? 'text/event-stream' : 'application/x-ndjson',
        );
      },
    },
  ),
  r.post('/v1/runs/{runId}/cancel', 'Cancel a run; the running step is aborted wherever it runs', {
    mcpTool: 'runs.cancel',
    response: { 200: RunCanceled },
    handler: ({ params, principal }, deps) => cancelRun(deps, principal.accountId, params.runId),
  }),
  r.post('/v1/runs/{runId}/resume', 'Resume a run at its waitpoint (choice, proxy outcome, approval)', {
    description:
      'A choice or a proxy outcome needs runs:write. An approval (a run resting `awaitingApproval`) needs ' +
      "approvals:write and a member other than the run's submitter (409 selfApproval) unless the account's " +
      'approval policy allows that gate kind; a refusal (`approved: false`, `reject`, `decline`) needs ' +
      'approvals:write or runs:write.',
    // Which scope the answer needs depends on the waitpoint: resumeRun decides (jobs/approvals/authorize.ts).
    scopes: [],
    body: RunResume,
    mcpTool: 'runs.resume',
    response: { 202: RunResumed },
    handler: async ({ params, body, principal }, deps) => {
      const run = await resumeRun(deps, principal, params.runId, body);
      return new Reply(202, {
        ok: true,
        runId: run.id,
        status: run.status,
        segment: run.segment,
        links: { self: `/v1/runs/${run.id}`, events: `/v1/runs/${run.id}/events` },
      });
    },
  }),
];
