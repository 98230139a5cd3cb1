import { TEMPLATES } from '../../jobs/domains.js';
import { submitRun } from '../../jobs/orchestrator/submit.js';
import { invalidPayload, notFound } from '../../shared/errors.js';
import { OrchestratorResult, RunAccepted, TemplateRunRequest } from '../../shared/schemas/orchestrator.js';
import { assertValid } from '../../shared/validation.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { answerRun } from './run-answer.js';

const r = routeGroup('workflows', { read: ['runs:read'], write: ['runs:write'] });

export const routes = [
  r.get('/v1/workflows/templates', 'Workflow templates with ids, domains, descriptions, schema refs', {
    auth: 'public', scopes: [],
    handler: () => ({ ok: true, templates: TEMPLATES.map((t) => ({ templateId: t.templateId, domains: t.domains, description: t.description, schemaRef: `/v1/schemas/${(t.input as { $id?: string }).$id}`, inputSchema: (t.input as { $id?: string }).$id })) }),
  }),
  r.post('/v1/workflows/templates/{templateId}/run', 'Run a workflow template; answers in the orchestrator shape', {
    body: TemplateRunRequest, response: { 200: OrchestratorResult, 202: RunAccepted }, countsAsWorkflow: true,
    handler: async ({ params, body, principal, headers }, deps) => {
      const template = TEMPLATES.find((t) => t.templateId === params.templateId);
      if (!template) throw notFound(`Workflow template ${params.templateId}`);
      if (body.templateId !== params.templateId) throw invalidPayload(`templateId ${body.templateId} in the body differs from ${params.templateId} in the path`);
      const input = assertValid<Record<string, unknown>>(template.input, body);
      const run = await submitRun(deps, principal!, { ...template.toRequest(input), ...(body.conversationId ? { conversationId: body.conversationId } : {}) });
      return answerRun(deps, run.id, headers.prefer);
    },
  }),
];
