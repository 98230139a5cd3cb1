import { AgentListQuery, AgentMatchRequest, AgentRegister, AgentView, DelegateRequest } from './schemas.js';
import { delegate, fetchAgent, findAgents, matchAgents, registerAgent } from './service.js';
import { agentView } from './view.js';
import { envelopeView } from '../envelopes/index.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';
import { Ok } from '../../shared/schemas/common.js';

const r = routeGroup('agents', { read: ['agents:read'], write: ['agents:write'] });
const AgentOne = Ok({ agent: AgentView }, 'AgentOne');

export const routes = [
  r.get('/v1/agents', 'List agent cards (filters: domain, capability; cursor pagination)', {
    query: AgentListQuery,
    mcpTool: 'agents.list',
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
    handler: async ({ body, principal }, deps) => ({ ok: true, ...(await matchAgents(deps, principal, body)) }),
  }),
  r.post('/v1/agents/delegate', 'Create an A2A delegation plan', {
    description:
      "Splits the request into domains (the orchestrator's router, the run's route or domainRoute), picks " +
      'the best registered agent for each and writes one delegation envelope per hand-off (status queued).',
    body: DelegateRequest,
    mcpTool: 'agents.delegate',
    handler: async ({ body, principal }, deps) => {
      const { envelopes, ...plan } = await delegate(deps, principal, body);
      return new Reply(201, { ok: true, ...plan, envelopes: envelopes.map(envelopeView) });
    },
  }),
];
