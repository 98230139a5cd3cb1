import type { Static } from '@sinclair/typebox';
import { getTask } from '../tasks/index.js';
import type { Deps } from '../../shared/deps.js';
import { notFound } from '../../shared/errors.js';
import type { ScamTriageRequest, Triage as TriageView } from './schemas.js';
import { llmSignals } from './triage-llm.js';
import { analyseClaim, triageSources, type TriageInput } from './triage.js';

/** The triage the route and the resolve step share: the rules, plus what the optional LLM adds. */
export async function triageClaim(
  deps: Pick<Deps, 'config' | 'log'>,
  input: TriageInput,
  signal?: AbortSignal,
): Promise<Static<typeof TriageView>> {
  const llm = await llmSignals(deps.config, triageSources(input), signal);
  if (llm.status === 'fellBack')
    deps.log.warn('scam triage: the LLM gave no usable answer; the rule findings stand alone');
  return { ...analyseClaim(input, llm.signals), llm: llm.status };
}

/** POST /v1/resolve/scamTriage: a `taskId` must name one of the caller's tasks. */
export async function triageForClient(
  deps: Deps,
  accountId: string,
  body: Static<typeof ScamTriageRequest>,
  signal?: AbortSignal,
) {
  if (body.taskId && !(await getTask(deps.db, accountId, body.taskId))) throw notFound(`Task ${body.taskId}`);
  const triage = await triageClaim(
    deps,
    { claim: body.claim, documents: body.documents, urls: body.urls, sender: body.sender },
    signal,
  );
  return { ok: true as const, taskId: body.taskId ?? null, triage };
}
