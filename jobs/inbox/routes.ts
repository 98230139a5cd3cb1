import { Readable } from 'node:stream';
import { routeGroup } from '../../shared/http/route-group.js';
import { defineRoute, Reply } from '../../shared/http/route-spec.js';
import { pathParams } from '../../shared/http/route-group.js';
import { answerItem, readFile } from './answer.js';
import {
  AnswerBody,
  Answered,
  AssignBody,
  FILE_TYPES,
  InboxFileBytes,
  InboxItemOne,
  InboxStreamEvent,
  InboxOne,
  InboxPage,
  InboxQuery,
  MAX_FILE_BYTES,
  NotificationChoices,
  NotificationsView,
  STREAM_EVENTS,
} from './schemas.js';
import {
  assignItem,
  claimItem,
  fetchItem,
  listItems,
  readNotificationChoices,
  writeNotificationChoices,
} from './service.js';
import { followInbox } from './stream.js';
import { CLAIM_MINUTES } from './logic.js';

/** Reading the inbox needs runs:read (every role has it); answering is checked per kind by the path it takes. */
const r = routeGroup('inbox', { read: ['runs:read'], write: ['runs:read'] });
const item = (detail: Awaited<ReturnType<typeof assignItem>>) => {
  const { answerSchema: _s, actions: _a, run: _r, choice: _c, approval: _p, mission: _m, ...summary } = detail;
  return { ok: true as const, item: summary };
};

export const routes = [
  r.get('/v1/inbox', 'Everything waiting for a person in the account: choices, approvals, missions', {
    description:
      'Open waitpoints that runs rest at (choices, approvals) and live proxy missions, newest first. Filters: ' +
      'kind, domain, olderThan (an age: 30m, 2h, 7d), assignee (`me`, a member id, `none`); cursor pagination.',
    query: InboxQuery,
    mcpTool: 'inbox.list',
    response: { 200: InboxPage },
    handler: async ({ query, principal }, deps) => ({ ok: true, ...(await listItems(deps, principal, query)) }),
  }),
  r.get('/v1/inbox/events', 'The inbox, live (Server-Sent Events)', {
    description:
      `Events: ${STREAM_EVENTS.join(', ')}. \`ready\` carries the open items (at most 500); \`item.added\` and ` +
      '`item.changed` the item; `item.removed` its id (answered, expired, canceled). A signed-in dashboard ' +
      'reads it with its session cookie.',
    streams: true,
    response: { 200: InboxStreamEvent },
    handler: ({ principal, signal }, deps) => {
      const list = async (limit: number) => (await listItems(deps, principal, { limit: Math.min(limit, 200) })).items;
      return Reply.stream(followInbox(deps, principal, list, signal), 'text/event-stream');
    },
  }),
  r.get('/v1/inbox/{itemId}', 'One item with what is needed to answer it, and its answer schema', {
    description:
      'A choice: its candidates with their evidence. An approval: what happens if approved (the plan and the ' +
      'steps left, the amount or budget, a diff where the step has one). A mission: its task, required proof ' +
      'items and files. `answerSchema` is the JSON Schema POST /v1/inbox/{itemId}/answer checks the body against.',
    mcpTool: 'inbox.get',
    response: { 200: InboxOne },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      item: (await fetchItem(deps, principal, params.itemId)).detail,
    }),
  }),
  r.post('/v1/inbox/{itemId}/assign', 'Assign the item to a member (null unassigns it)', {
    description:
      'Owners, admins and approvers (approvals:write). The member must be active, and its role must answer ' +
      'the kind (400); an approval is not assigned to the run’s submitter unless the policy allows it (409 ' +
      'selfApproval). The assignee is the one notified.',
    scopes: ['approvals:write'],
    body: AssignBody,
    response: { 200: InboxItemOne },
    handler: async ({ params, body, principal }, deps) =>
      item(await assignItem(deps, principal, params.itemId, body.memberId)),
  }),
  r.post('/v1/inbox/{itemId}/claim', `Claim the item for ${CLAIM_MINUTES} minutes while you work on it`, {
    description:
      `Another member's claim is 409 until they release it or it lapses (${CLAIM_MINUTES} min after the claim; ` +
      'claiming again renews yours). Needs the scope that answers the kind.',
    response: { 200: InboxItemOne },
    handler: async ({ params, principal }, deps) => item(await claimItem(deps, principal, params.itemId, true)),
  }),
  r.post('/v1/inbox/{itemId}/release', 'Release a claim (yours; an owner, admin or approver may release any)', {
    response: { 200: InboxItemOne },
    handler: async ({ params, principal }, deps) => item(await claimItem(deps, principal, params.itemId, false)),
  }),
  r.post('/v1/inbox/{itemId}/answer', "Answer the item through its domain's own path", {
    description:
      "The body is checked against the item's answerSchema (400 naming each field). A choice or an approval " +
      'resumes the run as POST /v1/runs/{runId}/resume does (an approval: approvals:write, never by the ' +
      'run’s submitter unless the policy allows it: 409 selfApproval); a mission takes its outcome as POST ' +
      `/v1/proxy/missions/{proxyId}/outcome does. Proof files: base64, at most ${MAX_FILE_BYTES} bytes each ` +
      `decoded, of ${FILE_TYPES.join(', ')} (the bytes must be of the type named), stored with their SHA-256. ` +
      "Another member's live claim is 409.",
    body: AnswerBody,
    // A proof file of MAX_FILE_BYTES in base64, with room for the rest of the answer.
    maxBodyBytes: Math.ceil(MAX_FILE_BYTES / 3) * 4 + 256 * 1024,
    response: { 200: Answered },
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      ...(await answerItem(deps, principal, params.itemId, body)),
    }),
  }),
  r.get('/v1/inbox/{itemId}/files/{sha256}', 'A proof file handed in with a mission answer, by its SHA-256', {
    description: 'The bytes as stored, with their content type and `X-Content-SHA256`. Same account only.',
    streams: true,
    response: { 200: InboxFileBytes },
    handler: async ({ params, principal }, deps) => {
      const file = await readFile(deps, principal, params.itemId, params.sha256);
      return Reply.stream(Readable.from([file.data]), file.content_type, {
        'Content-Length': String(file.size),
        'Content-Disposition': `attachment; filename="${file.name.replace(/[^\w.-]+/g, '_')}"`,
        'X-Content-SHA256': file.sha256,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'private, max-age=3600',
      });
    },
  }),
  r.get('/v1/members/me/notifications', 'What you are told of, by kind and channel (email, chat)', {
    scopes: [],
    response: { 200: NotificationsView },
    handler: async ({ principal }, deps) => ({ ok: true, ...(await readNotificationChoices(deps, principal)) }),
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/members/me/notifications',
    tag: 'inbox',
    auth: 'bearer',
    scopes: [],
    summary: 'Choose what you are told of: each kind (choice, approval, mission) on each channel',
    description:
      'Applies to new, escalated and expired items. Chat goes through the account’s msg.chat connector (Slack: a ' +
      'direct message to your email address); without one, only email.',
    params: pathParams('/v1/members/me/notifications'),
    body: NotificationChoices,
    response: { 200: NotificationsView },
    handler: async ({ body, principal }, deps) => ({
      ok: true,
      ...(await writeNotificationChoices(deps, principal, body as typeof NotificationChoices.static)),
    }),
  }),
];
