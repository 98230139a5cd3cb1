import type { StepHandler } from '../../step.js';
import { caseRefOf } from './logic.js';
import { linkRunToCase } from './service.js';

/**
 * Wraps resolve's step so a run (or a template: auditDisputedClaim,
 * vendorDueDiligence) whose metadata names a case, by `caseId` or by an
 * upsert key `caseKey`, opens or attaches to it: the run is linked on the
 * case's timeline, and each proof card it comes to rest with shows there.
 * The link is written once however often the step is retried; an unknown
 * caseId links nothing and says so as an open question.
 */
export function withCaseLink(step: StepHandler): StepHandler {
  return async (input, deps) => {
    const ref = caseRefOf(input.metadata);
    if (!ref) return step(input, deps);
    const linked = await linkRunToCase(deps, input.accountId, input.runId, ref, input.request);
    const outcome = await step(input, deps);
    if (!linked) {
      return {
        ...outcome,
        openQuestions: [
          ...(outcome.openQuestions ?? []),
          `Case ${'caseId' in ref ? ref.caseId : ''} was not found; the run is not linked to a case.`,
        ],
      };
    }
    return {
      ...outcome,
      output: { ...outcome.output, case: linked },
      conversation: [...outcome.conversation, `${linked.created ? 'Opened' : 'Linked to'} case ${linked.caseId}.`],
    };
  };
}
