import type { StepHandler } from '../step.js';
import { objectArray } from '../../shared/step-inputs.js';
import { repairReport } from './logic.js';
import { liveRepair, targetOf } from './repair-step.js';

/**
 * The kubernetes step: a run naming a cluster (`metadata.cluster`) repairs it live (repair-step.ts); otherwise it
 * diagnoses the pods and events in the run's metadata and proposes, never applies.
 */
export const kubernetesStep: StepHandler = async (input, deps) => {
  const target = targetOf(input.metadata);
  if (target) return liveRepair(input, deps, target);
  const report = repairReport(objectArray(input.metadata.pods), objectArray(input.metadata.events));
  return {
    output: report as unknown as Record<string, unknown>,
    evidence: report.findings.map((f) => ({
      claim: `${f.namespace}/${f.pod}: ${f.kind} — ${f.cause}`,
      source: `pod ${f.namespace}/${f.pod}`,
      sourceBound: true,
    })),
    conversation: [
      `Read ${report.podsRead} pod(s): ${report.findings.length} finding(s), ${report.approvals.length} ` +
        `change(s) awaiting approval; nothing was applied.`,
    ],
    openQuestions: [
      ...(report.podsRead === 0 ? ['No pods were given (metadata.pods: the items of kubectl get pods -o json).'] : []),
      ...report.approvals.map((a) => `Approve before running: ${a.action}`),
    ],
  };
};
