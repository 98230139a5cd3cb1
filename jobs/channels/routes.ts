import { ingestCallback, findCallbacks } from './callbacks.js';
import { ingestProviderCallback } from './provider-callbacks.js';
import {
  CallbackListQuery,
  CallbackPage,
  CallbackQuery,
  CallbackReply,
  ProviderCallback,
  ProviderCallbackBody,
  ProviderCallbackReply,
  ThreadCreate,
  ThreadListQuery,
  ThreadOne,
  ThreadPage,
  ThreadReply,
  TimelineQuery,
  TimelineReply,
  TouchpointCreate,
  TouchpointPage,
  TouchpointQuery,
  TouchpointReply,
} from './schemas.js';
import {
  fetchThread,
  fetchTouchpoint,
  findThreads,
  findTouchpoints,
  recordTouchpoint,
  timelineOf,
  upsertThreadByClient,
} from './service.js';
import { callbackView, threadView, timelineEntry, touchpointView } from './views.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';

/**
 * Conversations with the outside: threads, touchpoints and provider callbacks, and one timeline per thread with the
 * bridge actions in it.
 */
const r = routeGroup('channels', { read: ['channels:read'], write: ['channels:write'] });

export const routes = [
  r.post('/v1/channels/threads', 'Create or upsert a thread', {
    description:
      'The same externalKey upserts the same thread (same threadId, 200 with created: false); a new one is 201.',
    body: ThreadCreate,
    response: { 200: ThreadReply, 201: ThreadReply },
    handler: async ({ body, principal }, deps) => {
      const row = await upsertThreadByClient(deps, principal, body);
      return new Reply(row.created ? 201 : 200, { ok: true, thread: threadView(row), created: Boolean(row.created) });
    },
  }),
  r.get('/v1/channels/threads', 'List threads', {
    query: ThreadListQuery,
    response: { 200: ThreadPage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findThreads(deps, principal, query);
      return { ok: true, threads: rows.map(threadView), nextCursor };
    },
  }),
  r.get('/v1/channels/threads/{threadId}', 'Fetch a thread', {
    response: { 200: ThreadOne },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      thread: threadView(await fetchThread(deps, principal, params.threadId)),
    }),
  }),
  r.get('/v1/channels/threads/{threadId}/timeline', 'Unified timeline of a thread', {
    description:
      'Touchpoints, bridge actions and provider callbacks of the thread, ascending by at (ties by id), each ' +
      'with its kind and ref.',
    query: TimelineQuery,
    response: { 200: TimelineReply },
    handler: async ({ params, query, principal }, deps) => {
      const { thread, entries, nextCursor } = await timelineOf(deps, principal, params.threadId, query);
      return { ok: true, threadId: thread.id, entries: entries.map(timelineEntry), nextCursor };
    },
  }),
  r.post('/v1/channels/touchpoints', 'Record an inbound, outbound or internal touchpoint', {
    body: TouchpointCreate,
    response: { 201: TouchpointReply },
    handler: async ({ body, principal }, deps) =>
      new Reply(201, { ok: true, touchpoint: touchpointView(await recordTouchpoint(deps, principal, body)) }),
  }),
  r.get('/v1/channels/touchpoints', 'List touchpoints by thread, case, conversation, provider or status', {
    query: TouchpointQuery,
    response: { 200: TouchpointPage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findTouchpoints(deps, principal, query);
      return { ok: true, touchpoints: rows.map(touchpointView), nextCursor };
    },
  }),
  r.get('/v1/channels/touchpoints/{touchpointId}', 'Fetch a touchpoint', {
    response: { 200: TouchpointReply },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      touchpoint: touchpointView(await fetchTouchpoint(deps, principal, params.touchpointId)),
    }),
  }),
  r.post('/v1/channels/callbacks', 'Ingest a provider callback and reconcile', {
    description:
      "The body is the provider's JSON as it sent it; ?connectorId names the connector. The raw body must " +
      "carry a valid signature made with the connector's signingSecret: Standard Webhooks (webhook-id, " +
      'webhook-timestamp, webhook-signature) or X-Hub-Signature-256 (401 otherwise, also for a stale ' +
      'timestamp, and for a connector without a secret unless it was registered with the development ' +
      'setting callbackSigning: unsigned, which production refuses). Normalised (kind, status, refs), stored ' +
      'once per external id (a resend is 200 with duplicate: true and changes nothing), then reconciled: a ' +
      'delivery status moves its bridge action, a proxy outcome (by proxyId or callbackRef) resolves its ' +
      'mission once, an inbound message on a thread becomes a touchpoint.',
    query: CallbackQuery,
    body: ProviderCallback,
    response: { 200: CallbackReply, 201: CallbackReply },
    handler: async ({ query, body, rawBody, headers, principal }, deps) => {
      const { row, duplicate } = await ingestCallback(
        deps,
        principal,
        query.connectorId,
        body as Record<string, unknown>,
        rawBody,
        headers,
      );
      return new Reply(duplicate ? 200 : 201, { ok: true, callback: callbackView(row), duplicate });
    },
  }),
  r.post('/v1/channels/callbacks/{accountId}/{connectorId}', "A provider's callback (signed by it, no token)", {
    description:
      "Where a provider adapter's connector (kind twilio, slack, smtp…) has its provider send status callbacks, " +
      'inbound messages and answers: the adapters give the provider this URL. No bearer token: the ' +
      "provider's own signature over the raw body (form-encoded or JSON) is the authentication, made with the " +
      "connector's signing secret as its kind defines it (Twilio: X-Twilio-Signature with the auth token, the " +
      "credential's unless the connector has its own). 404 for a connector the account does not have " +
      "(another account's too), 401 unsigned or forged, 400 an empty or unreadable body. Each callback is " +
      "stored once by the provider's id for it (a Twilio SID and the status it reports): a redelivery changes " +
      "nothing. A delivery status moves its bridge action; an inbound reply (an SMS, a call's gathered speech " +
      'or keypad) goes to its mission, which it resolves when unambiguous. Answered as the provider expects ' +
      '(Twilio: TwiML), else JSON.',
    auth: 'public',
    scopes: [],
    formBody: true,
    body: ProviderCallbackBody,
    response: { 200: ProviderCallbackReply },
    handler: async ({ params, body, rawBody, headers, origin }, deps) => {
      const req = { rawBody, body: body as Record<string, unknown>, headers, origin };
      const out = await ingestProviderCallback(deps, params.accountId, params.connectorId, req);
      if (out.reply) return new Reply(200, out.reply.body, { 'Content-Type': out.reply.contentType });
      return { ok: true, callback: callbackView(out.row), duplicate: out.duplicate };
    },
  }),
  r.get('/v1/channels/callbacks', 'List normalized callbacks', {
    query: CallbackListQuery,
    response: { 200: CallbackPage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findCallbacks(deps, principal, query);
      return { ok: true, callbacks: rows.map(callbackView), nextCursor };
    },
  }),
];
