// What a step is handed: its input from the run, its resumed answer, and the approver its proof card cites.
import { answerApproves } from '../approval-gates.js';
import type { BegunStep } from '../../shared/db/run-steps.js';
import type { StepJobData } from '../../shared/schemas/run-data.js';
import { readAs } from '../../shared/validation.js';
import type { StepInput, StepOutcome } from '../step.js';
import { RunInput, WaitpointResolution } from './schemas.js';

/**
 * A step resumed by an approval cites who gave it, so the proof card says who approved (jobs/approvals/authorize.ts).
 */
export function withApprover(outcome: StepOutcome, wp: BegunStep['resumeWaitpoint']): StepOutcome {
  const by = wp?.resolution?.approvedBy;
  if (typeof by !== 'string') return outcome;
  const verb = answerApproves(wp!.resolution as { approved?: boolean; action?: string }) ? 'approved' : 'refused';
  const claim = `${String(wp!.resolution!.gate ?? 'approval')} gate ${verb} by member ${by}`;
  return { ...outcome, evidence: [...outcome.evidence, { claim, source: `approval:${wp!.id}`, sourceBound: true }] };
}

export function stepInput(
  data: StepJobData,
  { run, prior: done, resumeWaitpoint: wp }: BegunStep,
  signal: AbortSignal,
  emit: StepInput['emit'],
): StepInput {
  const prior: StepInput['prior'] = {};
  // In route order, so a later segment's output of a domain wins over an earlier one's.
  for (const s of done) if (!(s.segment === data.segment && s.idx >= data.index)) prior[s.domain] = s.output;
  let resume: StepInput['resume'];
  if (wp) {
    const resolution = readAs(WaitpointResolution, wp.resolution ?? {}, `resolution of waitpoint ${wp.id}`);
    // What the waitpoint stored (the choices offered) and the validated answer win over the client's free-form data.
    const { itemId, action, approved, ...clientData } = resolution;
    resume = {
      waitpointId: wp.id,
      kind: wp.kind,
      action,
      itemId,
      data: { ...clientData, ...wp.payload, itemId, action, approved },
    };
  }
  const { metadata, ...extras } = readAs(RunInput, run.input, `input of run ${run.id}`);
  const clause = (run.routing as { clauses?: Record<string, string> }).clauses?.[data.domain] ?? run.request;
  return {
    runId: run.id,
    accountId: run.account_id,
    domain: data.domain,
    segment: data.segment,
    index: data.index,
    request: run.request,
    clause,
    metadata: metadata ?? {},
    prior,
    resume,
    extras,
    signal,
    emit,
  };
}
