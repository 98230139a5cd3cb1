import type { EvidenceItem, StepHandler } from '../step.js';
import { analyzeEnvironment } from './logic.js';
import { stringRecord } from '../../shared/step-inputs.js';

/**
 * The environment step reads the project files of the run (`metadata.files`)
 * and reports what the project needs. A run without files gets a report that
 * asks for them; nothing is executed.
 */
export const environmentStep: StepHandler = async (input) => {
  const files = stringRecord(input.metadata.files);
  const report = analyzeEnvironment(files);
  const evidence: EvidenceItem[] = [
    ...report.runtimes.map((r) => ({
      claim: `${r.name}${r.version ? ` ${r.version}` : ''} is required`,
      source: r.source,
      sourceBound: true,
    })),
    ...report.services.map((s) => ({ claim: `${s.name} is used`, source: s.evidence[0]!.source, sourceBound: true })),
  ];
  return {
    output: { ...report, executed: false },
    evidence,
    conversation: [
      `Read ${report.filesRead} file(s): ${report.runtimes.map((r) => r.name).join(', ') || 'no runtime'}; ` +
        `${report.services.length} service(s), ${report.secrets.length} secret(s); ${report.readiness}.`,
    ],
    openQuestions: report.readiness === 'ready' ? [] : report.reasons,
  };
};
