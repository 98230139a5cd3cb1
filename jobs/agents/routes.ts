import { Type } from '@sinclair/typebox';
import { AgentListQuery, AgentMatchRequest, AgentRegister, AgentView, DelegateRequest } from './schemas.js';
import { delegate, fetchAgent, findAgents, matchAgents, registerAgent } from './service.js';
import { agentView } from './view.js';
import { envelopeView, EnvelopeView } from '../envelopes/index.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';
import { Ok, Page } from '../../shared/schemas/common.js';

const r = routeGroup('agents', { read: ['agents:read'], write: ['agents:write'] });
const AgentOne = Ok({ agent: AgentView }, 'AgentOne');
const Scored = { agentId: Type.String(), score: Type.Number(), reasons: Type.Array(Type.String()) };
const AgentMatches = Ok(
  {
    considered: Type.Integer({ description: 'Registered agents read for the domain' }),
    matches: Type.Array(
      Type.Object({
        ...Scored,
        missing: Type.Array(Type.String(), { description: 'Asked capabilities it lacks' }),
        name: Type.String(),
        domains: Type.Array(Type.String()),
      }),
    ),
  },
  'AgentMatches',
);
const DelegationPlan = Ok(
  {
    planId: Type.String(),
    request: Type.String(),
    route: Type.Array(Type.String()),
    runId: Type.Union([Type.String(), Type.Null()]),
    taskId: Type.Union([Type.String(), Type.Null()]),
    handoffs: Type.Array(
      Type.Object({
        step: Type.Integer(),
        domain: Type.String(),
        ...Scored,
        missing: Type.Array(Type.String()),
        msgId: Type.String({ description: 'The envelope sent to the agent' }),
        alternatives: Type.Array(Type.Object(Scored)),
      }),
    ),
    unassigned: Type.Array(Type.Object({ step: Type.Integer(), domain: Type.String(), reason: Type.String() })),
    envelopes: Type.Array(EnvelopeView),
  },
  'DelegationPlan',
);

export const routes = [
  r.get('/v1/agents', 'List agent cards (filters: domain, capability; cursor pagination)', {
    query: AgentListQuery,
    mcpTool: 'agents.list',
    response: { 200: Page('agents', AgentView, 'AgentPage') },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findAgents(deps, principal, query);
      return { ok: true, agents: rows.map(agentView), nextCursor };
    },
  }),
  r.post('/v1/agents', 'Register an agent card', {
    description:
      'The card is an A2A agent card (1.0, or 0.3 which is translated to 1.0); it is stored as A2A 1.0 JSON ' +
      'with the domains the agent serves and the capability terms it is matched on.',
    body: AgentRegister,
    response: { 201: AgentOne },
    handler: async ({ body, principal }, deps) =>
      new Reply(201, { ok: true, agent: agentView(await registerAgent(deps, principal, body)) }),
  }),
  r.get('/v1/agents/{agentId}', 'Fetch an agent card', {
    response: { 200: AgentOne },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      agent: agentView(await fetchAgent(deps, principal, params.agentId)),
    }),
  }),
  r.post('/v1/agents/match', 'Match agents by domain and capabilities', {
    description:
      'Scores in [0, 1]: serving the domain is half (all, without capabilities), the share of capabilities ' +
      'covered the other half; each match says why.',
    body: AgentMatchRequest,
    mcpTool: 'agents.match',
    response: { 200: AgentMatches },
    handler: async ({ body, principal }, deps) => ({ ok: true, ...(await matchAgents(deps, principal, body)) }),
  }),
  r.post('/v1/agents/delegate', 'Create an A2A delegation plan', {
    description:
      "Splits the request into domains (the orchestrator's router, the run's route or domainRoute), picks " +
      'the best registered agent for each and writes one delegation envelope per hand-off (status queued).',
    body: DelegateRequest,
    mcpTool: 'agents.delegate',
    response: { 201: DelegationPlan },
    handler: async ({ body, principal }, deps) => {
      const { envelopes, ...plan } = await delegate(deps, principal, body);
      return new Reply(201, { ok: true, ...plan, envelopes: envelopes.map(envelopeView) });
    },
  }),
];
