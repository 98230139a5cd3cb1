import { Type } from '@sinclair/typebox';
import {
  createRule,
  fetchRule,
  fetchSignal,
  findRules,
  findSignals,
  ingestSignal,
  removeRule,
  updateRuleByClient,
} from './service.js';
import {
  SignalAnswer,
  SignalDetail,
  SignalIngest,
  SignalListQuery,
  SignalPage,
  SignalRuleAnswer,
  SignalRuleCreate,
  SignalRulePage,
  SignalRuleUpdate,
} from './schemas.js';
import { matchView, ruleView, signalView } from './views.js';
import { pathParams, routeGroup } from '../../shared/http/route-group.js';
import { defineRoute, Reply } from '../../shared/http/route-spec.js';
import { Deleted, PageQuery } from '../../shared/schemas/common.js';

const scopes = { read: ['signals:read'], write: ['signals:write'] };
const r = routeGroup('signals', scopes);
const RULE = '/v1/signals/rules/{ruleId}';

export const routes = [
  r.post(
    '/v1/signals',
    'Ingest a signal; idempotent by source + sourceId (a duplicate answers the first, duplicate: true); ' +
      'matching rules start their runs',
    {
      body: SignalIngest,
      response: { 201: SignalAnswer, 200: SignalAnswer },
      mcpTool: 'signals.ingest',
      handler: async ({ body, principal }, deps) => {
        const { signal, duplicate, matches } = await ingestSignal(deps, principal, body);
        return new Reply(duplicate ? 200 : 201, {
          ok: true,
          signal: signalView(signal),
          duplicate,
          matches: matches.map(matchView),
        });
      },
    },
  ),
  r.get('/v1/signals', 'List signals, newest first; filters: type, subject, observed time range', {
    query: SignalListQuery,
    response: { 200: SignalPage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findSignals(deps, principal, query);
      return { ok: true, signals: rows.map(signalView), nextCursor };
    },
  }),
  r.get('/v1/signals/{signalId}', 'Fetch a signal with the rules it matched and the runs they started', {
    response: { 200: SignalDetail },
    handler: async ({ params, principal }, deps) => {
      const { signal, matches } = await fetchSignal(deps, principal, params.signalId);
      return { ok: true, signal: signalView(signal), matches: matches.map(matchView) };
    },
  }),
  r.post(
    '/v1/signals/rules',
    'Create a signal rule: a signal type, a JSON Logic condition (comparison, boolean and var operators ' +
      'only) and the run it starts',
    {
      body: SignalRuleCreate,
      response: { 201: SignalRuleAnswer },
      handler: async ({ body, principal }, deps) =>
        new Reply(201, { ok: true, rule: ruleView(await createRule(deps, principal, body)) }),
    },
  ),
  r.get('/v1/signals/rules', 'List signal rules', {
    query: Type.Composite([
      PageQuery,
      Type.Object({ signalType: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }),
    ]),
    response: { 200: SignalRulePage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findRules(deps, principal, query);
      return { ok: true, rules: rows.map(ruleView), nextCursor };
    },
  }),
  r.get(RULE, 'Fetch a signal rule', {
    response: { 200: SignalRuleAnswer },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      rule: ruleView(await fetchRule(deps, principal, params.ruleId)),
    }),
  }),
  r.post(`${RULE}/update`, 'Update a signal rule (the condition and target are checked again)', {
    body: SignalRuleUpdate,
    response: { 200: SignalRuleAnswer },
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      rule: ruleView(await updateRuleByClient(deps, principal, params.ruleId, body)),
    }),
  }),
  defineRoute({
    method: 'DELETE',
    path: RULE,
    tag: 'signals',
    auth: 'bearer',
    scopes: scopes.write,
    params: pathParams(RULE),
    summary: 'Delete a signal rule; its past matches stay on their signals',
    response: { 200: Deleted },
    handler: async ({ params, principal }, deps) => {
      await removeRule(deps, principal, (params as { ruleId: string }).ruleId);
      return { ok: true };
    },
  }),
];
