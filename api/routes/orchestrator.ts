import { OrchestratorRequest, OrchestratorResult, RunAccepted } from '../../shared/schemas/orchestrator.js';
import { routeGroup } from './group.js';

const r = routeGroup('orchestrator', { read: ['runs:read'], write: ['runs:write'] });

export const routes = [
  r.post('/v1/orchestrator/run', 'Route a request across domains and run it', {
    body: OrchestratorRequest, response: { 200: OrchestratorResult, 202: RunAccepted }, countsAsWorkflow: true, mcpTool: 'orchestrator.run',
  }),
];
