import { Type, type Static } from '@sinclair/typebox';
import { invalidPayload } from '../../shared/errors.js';
import { assertValid } from '../../shared/validation.js';
import { modules } from '../module-registry.js';
import { OrchestratorRequest } from '../orchestrator/index.js';

/**
 * The orchestrator request a rule or schedule starts: the run API's body less what only a live caller has (a
 * conversation turn, a waitpoint answer, a stream).
 */
export const AutomatedRequest = Type.Omit(
  OrchestratorRequest,
  ['conversationId', 'taskId', 'stream', 'action', 'itemId'],
  { $id: 'AutomatedRunRequest' },
);
export type AutomatedRequest = Static<typeof AutomatedRequest>;

/** What a signal rule or a schedule starts: a workflow template with its input, or an orchestrator request. */
export const RunTarget = Type.Object(
  {
    templateId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'A workflow template (GET /v1/workflows/templates); its input goes in `input`',
      }),
    ),
    input: Type.Optional(
      Type.Object(
        {},
        { additionalProperties: true, description: "The template's input (its schema minus templateId)" },
      ),
    ),
    request: Type.Optional(AutomatedRequest),
  },
  {
    $id: 'RunTarget',
    additionalProperties: false,
    description:
      "Exactly one of `templateId` (with `input`) or `request`. The run's metadata gets the signal or the " +
      'firing that started it under `awp`.',
  },
);
export type RunTarget = Static<typeof RunTarget>;

/**
 * Checks a target when it is written, so a rule or a schedule never holds one that could not start: 400 naming what is
 * wrong.
 */
export function checkTarget(target: RunTarget): RunTarget {
  if (Boolean(target.templateId) === Boolean(target.request))
    throw invalidPayload('target takes exactly one of templateId or request', { path: '/target' });
  if (target.request) {
    if (target.input)
      throw invalidPayload('target.input goes with templateId, not with request', { path: '/target/input' });
    return target;
  }
  const template = modules().templates.find((t) => t.templateId === target.templateId);
  if (!template)
    throw invalidPayload(
      `target.templateId ${target.templateId} is not a workflow template; GET /v1/workflows/templates lists them`,
      { templates: modules().templates.map((t) => t.templateId) },
    );
  assertValid(template.input, { ...(target.input ?? {}), templateId: target.templateId });
  return target;
}

/** The target with `awp` (what started the run) merged into the metadata it passes on. */
export function withOrigin(
  target: RunTarget,
  origin: Record<string, unknown>,
): { templateId: string; body: Record<string, unknown> } | { request: OrchestratorRequest } {
  if (target.templateId) {
    const input = (target.input ?? {}) as Record<string, unknown>;
    const metadata = { ...objectOr(input.metadata), awp: origin };
    return { templateId: target.templateId, body: { ...input, templateId: target.templateId, metadata } };
  }
  const request = target.request!;
  return { request: { ...request, metadata: { ...(request.metadata ?? {}), awp: origin } } };
}

const objectOr = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
