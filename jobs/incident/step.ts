import type { StepHandler } from '../step.js';
import { objectArray } from '../../shared/step-inputs.js';
import { respond } from './report.js';

/** The incident step reads `metadata.alerts` and `metadata.signals`; mutating responses stay proposals. */
export const incidentStep: StepHandler = async (input) => {
  const signals =
    input.metadata.signals && typeof input.metadata.signals === 'object'
      ? (input.metadata.signals as Record<string, unknown>)
      : {};
  const report = respond(objectArray(input.metadata.alerts), signals);
  return {
    output: report as unknown as Record<string, unknown>,
    evidence: report.alerts.map((a) => ({
      claim: `${a.severity} ${a.status} alert ${a.name}${a.service ? ` on ${a.service}` : ''}`,
      source: a.link ?? `${a.source} alert ${a.key}`,
      sourceBound: Boolean(a.link),
    })),
    conversation: [
      `${report.incident.title}: ${report.actions.length} diagnostic(s), ${report.approvals.length} ` +
        `action(s) awaiting approval, none performed.`,
    ],
    openQuestions: [
      ...(report.alerts.length === 0 ? ['No alerts were given (metadata.alerts).'] : []),
      ...report.approvals.map((a) => `Approve before anyone acts: ${a.action}`),
    ],
  };
};
