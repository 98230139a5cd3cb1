import { pathParams } from '../../shared/http/route-group.js';
import { defineRoute, Reply } from '../../shared/http/route-spec.js';
import { Deleted, PageQuery } from '../../shared/schemas/common.js';
import {
  OutreachDecisionPage,
  OutreachDecisionQuery,
  OutreachDecisionReply,
  OutreachEvaluate,
  SuppressionCreate,
  SuppressionPage,
  SuppressionReply,
  addSuppression,
  evaluateAndRecord,
  findDecisions,
  findSuppressions,
  removeSuppression,
} from '../policy/index.js';
import { security } from './routes.js';

const SUPPRESSION = '/v1/compliance/suppressions/{suppressionId}';

/**
 * Outreach compliance: the gate every contact with a person passes, its suppression list and its audit trail of
 * decisions.
 */
export const complianceRoutes = [
  security.post(
    '/v1/compliance/outreach/evaluate',
    'Lawful basis, consent, suppression and quiet hours before outreach',
    {
      description:
        'Answers allow, deny (every rule that denies, each with its rule id) or defer (quiet hours, ' +
        '21:00-08:00 in recipientTimezone, for calls and texts; notBefore says when). Every decision is ' +
        'recorded and listed at GET /v1/compliance/outreach/decisions.',
      body: OutreachEvaluate,
      response: { 200: OutreachDecisionReply },
      mcpTool: 'compliance.evaluateOutreach',
      handler: async ({ body, principal }, deps) => ({
        ok: true,
        ...(await evaluateAndRecord(deps, principal, body, 'evaluate')),
      }),
    },
  ),
  security.get('/v1/compliance/outreach/decisions', 'Recorded outreach decisions, newest first (audit)', {
    query: OutreachDecisionQuery,
    response: { 200: OutreachDecisionPage },
    handler: ({ query, principal }, deps) => findDecisions(deps, principal, query),
  }),
  security.post(
    '/v1/compliance/suppressions',
    'Suppress a recipient (E.164 phone or lower-cased email); adding one again changes nothing',
    {
      body: SuppressionCreate,
      response: { 201: SuppressionReply },
      handler: async ({ body, principal }, deps) =>
        new Reply(201, { ok: true, suppression: await addSuppression(deps, principal, body) }),
    },
  ),
  security.get('/v1/compliance/suppressions', 'List suppressed recipients', {
    query: PageQuery,
    response: { 200: SuppressionPage },
    handler: ({ query, principal }, deps) => findSuppressions(deps, principal, query),
  }),
  defineRoute({
    method: 'DELETE',
    path: SUPPRESSION,
    tag: 'security',
    auth: 'bearer',
    scopes: ['tools:use'],
    params: pathParams(SUPPRESSION),
    summary: 'Remove a suppression',
    response: { 200: Deleted },
    handler: async ({ params, principal }, deps) => {
      await removeSuppression(deps, principal, (params as { suppressionId: string }).suppressionId);
      return { ok: true };
    },
  }),
];
