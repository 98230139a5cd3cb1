import { Type } from '@sinclair/typebox';
import { routeGroup } from '../../../shared/http/route-group.js';
import { Reply } from '../../../shared/http/route-spec.js';
import {
  ActionList,
  ActionOne,
  CaseList,
  CaseOne,
  DeadlineOne,
  DeadlineReview,
  EntryOne,
  StakeholderOne,
  Timeline,
} from './view-schemas.js';
import {
  ActionCreate,
  ActionListQuery,
  ActionUpdate,
  CaseListQuery,
  CaseUpdate,
  CaseUpsert,
  DeadlineCreate,
  DeadlineUpdate,
  StakeholderCreate,
  TimelineAppend,
} from './schemas.js';
import {
  addAction,
  addDeadline,
  addStakeholder,
  findActions,
  updateActionByClient,
  updateDeadlineByClient,
} from './parts.js';
import { reviewDeadlines } from './review.js';
import { fetchCase, findCases, updateCaseByClient, upsertCase } from './service.js';
import { caseTimeline, appendEntry } from './timeline.js';
import { actionView, caseDetail, caseView, deadlineView, entryView, stakeholderView } from './view.js';

/** The case workspace routes (tag `cases`, scopes cases:read / cases:write), part of the resolve module. */
const cases = routeGroup('cases', { read: ['cases:read'], write: ['cases:write'] });
const NoBody = Type.Object(
  {},
  {
    $id: 'CaseDeadlineReviewRequest',
    additionalProperties: true,
    description: 'No fields: the review looks at every open deadline of the case',
  },
);

export const caseRoutes = [
  cases.get(
    '/v1/cases',
    'List cases (filters: status, priority, taskId, runId, stakeholderEmail, text; cursor pagination)',
    {
      query: CaseListQuery,
      response: { 200: CaseList },
      mcpTool: 'cases.list',
      handler: async ({ query, principal }, deps) => {
        const { rows, nextCursor } = await findCases(deps, principal, query);
        return { ok: true, cases: rows.map(caseView), nextCursor };
      },
    },
  ),
  cases.post('/v1/cases', 'Create or upsert a case', {
    description:
      'Without externalKey, or with one the account does not use yet: a new case, `open`, 201. With a key ' +
      "the account uses: that case with the body's fields applied, 200 (`created: false`); the same body " +
      'again changes nothing. taskId and runId must be yours (404).',
    body: CaseUpsert,
    response: { 200: CaseOne, 201: CaseOne },
    mcpTool: 'cases.upsert',
    handler: async ({ body, principal }, deps) => {
      const { created, record } = await upsertCase(deps, principal, body);
      return new Reply(created ? 201 : 200, { ok: true, created, case: caseDetail(record) });
    },
  }),
  cases.get('/v1/cases/{caseId}', 'Fetch a case with its stakeholders, deadlines and open action items', {
    response: { 200: CaseOne },
    mcpTool: 'cases.get',
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      case: caseDetail(await fetchCase(deps, principal, params.caseId)),
    }),
  }),
  cases.post('/v1/cases/{caseId}/update', 'Update status, metadata, collaboration state', {
    description:
      'The status moves through the case table: a move it does not allow (out of closed, for one) is 409 ' +
      'with `details.allowed`; an unknown status is 400. Metadata merges key by key (null removes). Writes ' +
      'case.updated when anything changed.',
    body: CaseUpdate,
    response: { 200: CaseOne },
    mcpTool: 'cases.update',
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      case: caseDetail(await updateCaseByClient(deps, principal, params.caseId, body)),
    }),
  }),
  cases.post('/v1/cases/{caseId}/stakeholders', 'Add a stakeholder', {
    description: 'A contact (email or phone) the case already has is 409 naming that stakeholder.',
    body: StakeholderCreate,
    response: { 201: StakeholderOne },
    handler: async ({ params, body, principal }, deps) =>
      new Reply(201, {
        ok: true,
        caseId: params.caseId,
        stakeholder: stakeholderView(await addStakeholder(deps, principal, params.caseId, body)),
      }),
  }),
  cases.post('/v1/cases/{caseId}/deadlines', 'Add a deadline', {
    body: DeadlineCreate,
    response: { 201: DeadlineOne },
    handler: async ({ params, body, principal }, deps) =>
      new Reply(201, {
        ok: true,
        caseId: params.caseId,
        deadline: deadlineView(await addDeadline(deps, principal, params.caseId, body)),
      }),
  }),
  cases.post('/v1/cases/{caseId}/deadlines/review', 'Mark overdue open deadlines as missed', {
    description:
      "Answers the deadlines this review marked missed (each is marked once, by this route or by the clock's " +
      'review every 5 minutes) and all deadlines of the case. Writes case.deadline.missed for each.',
    body: NoBody,
    response: { 200: DeadlineReview },
    handler: async ({ params, principal }, deps) => {
      const { missed, deadlines } = await reviewDeadlines(deps, principal, params.caseId);
      return {
        ok: true,
        caseId: params.caseId,
        missed: missed.map(deadlineView),
        deadlines: deadlines.map(deadlineView),
      };
    },
  }),
  cases.post(
    '/v1/cases/{caseId}/deadlines/{deadlineId}/update',
    'Mark a deadline met or waived; change its title, due time or owner',
    {
      description:
        'Added. Moves follow the deadline table (open → met | missed | waived; missed → met | waived): ' +
        'another is 409 with `details.allowed`. `missed` is set by the review only.',
      body: DeadlineUpdate,
      response: { 200: DeadlineOne },
      handler: async ({ params, body, principal }, deps) => ({
        ok: true,
        caseId: params.caseId,
        deadline: deadlineView(await updateDeadlineByClient(deps, principal, params.caseId, params.deadlineId, body)),
      }),
    },
  ),
  cases.post('/v1/cases/{caseId}/actions', 'Add an action item', {
    description: 'refs point at your runs, tasks, missions and proof cards (404 when one is not yours) or receipts.',
    body: ActionCreate,
    response: { 201: ActionOne },
    handler: async ({ params, body, principal }, deps) =>
      new Reply(201, {
        ok: true,
        caseId: params.caseId,
        action: actionView(await addAction(deps, principal, params.caseId, body)),
      }),
  }),
  cases.get('/v1/cases/{caseId}/actions', 'List action items (filter: status; cursor pagination)', {
    query: ActionListQuery,
    response: { 200: ActionList },
    handler: async ({ params, query, principal }, deps) => {
      const { rows, nextCursor } = await findActions(deps, principal, params.caseId, query);
      return { ok: true, caseId: params.caseId, actions: rows.map(actionView), nextCursor };
    },
  }),
  cases.post('/v1/cases/{caseId}/actions/{actionId}/update', 'Update status, owner, due date, refs', {
    description:
      'The status moves through the action table (done and canceled are final): another move is 409 with ' +
      '`details.allowed`. Writes case.action.updated when anything changed.',
    body: ActionUpdate,
    response: { 200: ActionOne },
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      caseId: params.caseId,
      action: actionView(await updateActionByClient(deps, principal, params.caseId, params.actionId, body)),
    }),
  }),
  cases.post('/v1/cases/{caseId}/events', 'Append a timeline event', {
    body: TimelineAppend,
    response: { 201: EntryOne },
    mcpTool: 'cases.appendEvent',
    handler: async ({ params, body, principal }, deps) =>
      new Reply(201, {
        ok: true,
        caseId: params.caseId,
        entry: entryView(await appendEntry(deps, principal, params.caseId, body)),
      }),
  }),
  cases.get('/v1/cases/{caseId}/timeline', 'Fetch the case timeline: every change, oldest first (cursor pagination)', {
    list: true,
    response: { 200: Timeline },
    mcpTool: 'cases.timeline',
    handler: async ({ params, query, principal }, deps) => {
      const { rows, nextCursor } = await caseTimeline(deps, principal, params.caseId, query);
      return { ok: true, caseId: params.caseId, entries: rows.map(entryView), nextCursor };
    },
  }),
];
