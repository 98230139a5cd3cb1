import { TemplateRunRequest } from '../../shared/schemas/orchestrator.js';
import { routeGroup } from './group.js';

const r = routeGroup('workflows', { read: ['runs:read'], write: ['runs:write'] });

export const routes = [
  r.get('/v1/workflows/templates', 'Workflow templates with ids, domains, descriptions, schema refs', { auth: 'public', scopes: [] }),
  r.post('/v1/workflows/templates/{templateId}/run', 'Run a workflow template; answers in the orchestrator shape', { body: TemplateRunRequest, countsAsWorkflow: true }),
];
