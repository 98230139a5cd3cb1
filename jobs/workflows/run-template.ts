import type { Deps } from '../../shared/deps.js';
import type { RunRow } from '../../shared/db/runs.js';
import { invalidPayload, notFound } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { assertValid } from '../../shared/validation.js';
import { modules } from '../module-registry.js';
import { OrchestratorRequest, submitRun } from '../orchestrator/index.js';

/**
 * Starts a run from a workflow template: the input is checked against the template's schema, and the request it makes
 * against the orchestrator's.
 */
export async function runTemplate(
  deps: Deps,
  principal: Principal,
  templateId: string,
  body: { templateId: string; conversationId?: string } & Record<string, unknown>,
  runId?: string,
): Promise<RunRow> {
  const template = modules().templates.find((t) => t.templateId === templateId);
  if (!template) throw notFound(`Workflow template ${templateId}`);
  if (body.templateId !== templateId)
    throw invalidPayload(`templateId ${body.templateId} in the body differs from ${templateId} in the path`);
  const input = assertValid<Record<string, unknown>>(template.input, body);
  const request = assertValid<OrchestratorRequest>(OrchestratorRequest, {
    ...template.toRequest(input),
    ...(body.conversationId ? { conversationId: body.conversationId } : {}),
  });
  return submitRun(deps, principal, request, runId);
}
