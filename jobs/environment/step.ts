import type { EvidenceItem, StepHandler } from '../step.js';
import { environmentAnalyzer } from './analyzer.js';
import { stringRecord, text } from '../../shared/step-inputs.js';
import { repositoryFiles } from './repo.js';

/**
 * The environment step reads the project files of the run (`metadata.files`, and the repository at
 * `metadata.repoUrl` cloned with `metadata.repoCredential`, repo.ts) and reports what the project needs. A run
 * without files gets a report that asks for them; nothing is executed.
 */
export const environmentStep: StepHandler = async (input, deps) => {
  const repoUrl = text(input.metadata.repoUrl);
  // A repository is cloned and read (repo.ts); files sent beside it win over the clone's.
  const cloned = repoUrl
    ? await repositoryFiles(deps, input.accountId, repoUrl, text(input.metadata.repoCredential) ?? null)
    : {};
  const files = { ...cloned, ...stringRecord(input.metadata.files) };
  const report = (await environmentAnalyzer())(files);
  const evidence: EvidenceItem[] = [
    ...report.runtimes.map((r) => ({
      claim: `${r.name}${r.version ? ` ${r.version}` : ''} is required`,
      source: r.source,
      sourceBound: true,
    })),
    ...report.services.map((s) => ({ claim: `${s.name} is used`, source: s.evidence[0]!.source, sourceBound: true })),
  ];
  return {
    output: {
      ...report,
      ...(repoUrl ? { repository: { filesCloned: Object.keys(cloned).length } } : {}),
      executed: false,
    },
    evidence,
    conversation: [
      `Read ${report.filesRead} file(s): ${report.runtimes.map((r) => r.name).join(', ') || 'no runtime'}; ` +
        `${report.services.length} service(s), ${report.secrets.length} secret(s); ${report.readiness}.`,
    ],
    openQuestions: report.readiness === 'ready' ? [] : report.reasons,
  };
};
