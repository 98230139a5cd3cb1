import { Type } from '@sinclair/typebox';
import { Ok } from '../../shared/schemas/common.js';
import { modules } from '../module-registry.js';
import { runTemplate } from './run-template.js';
import { OrchestratorResult, RunAccepted, answerRun } from '../orchestrator/index.js';
import { TemplateRunRequest } from '../../shared/schemas/orchestrator.js';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('workflows', { read: ['runs:read'], write: ['runs:write'] });
const TemplateList = Ok(
  {
    templates: Type.Array(
      Type.Object({
        templateId: Type.String(),
        domains: Type.Array(Type.String()),
        description: Type.String(),
        schemaRef: Type.String({ description: 'Where its input schema is: /v1/schemas/{inputSchema}' }),
        inputSchema: Type.String({ description: 'The $id of its input schema' }),
      }),
    ),
  },
  'WorkflowTemplateList',
);

export const routes = [
  r.get('/v1/workflows/templates', 'Workflow templates with ids, domains, descriptions, schema refs', {
    auth: 'public',
    scopes: [],
    mcpTool: 'workflows.listTemplates',
    response: { 200: TemplateList },
    handler: () => ({
      ok: true,
      templates: modules().templates.map((t) => ({
        templateId: t.templateId,
        domains: t.domains,
        description: t.description,
        schemaRef: `/v1/schemas/${(t.input as { $id?: string }).$id}`,
        inputSchema: (t.input as { $id?: string }).$id,
      })),
    }),
  }),
  r.post('/v1/workflows/templates/{templateId}/run', 'Run a workflow template; answers in the orchestrator shape', {
    body: TemplateRunRequest,
    response: { 200: OrchestratorResult, 202: RunAccepted },
    countsAsWorkflow: true,
    mcpTool: 'workflows.runTemplate',
    handler: async ({ params, body, principal, headers, signal }, deps) => {
      const run = await runTemplate(deps, principal, params.templateId, body);
      return answerRun(deps, run, headers.prefer, signal);
    },
  }),
];
