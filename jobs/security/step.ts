import { invalidPayload } from '../../shared/errors.js';
import { SecurityValidateRequest } from './schemas.js';
import { assertValid } from '../../shared/validation.js';
import type { StepHandler } from '../step.js';
import { scanFiles } from './scan.js';

/**
 * "Scan this repo for leaked keys": the files come with the run
 * (`metadata.files` or a `files` field of the body, path → contents), and go
 * through the same scan as POST /v1/security/validate. Each finding is
 * evidence bound to its file and line, never to its value.
 */
export const securityStep: StepHandler = async (input, deps) => {
  const files = input.metadata.files ?? input.extras.files;
  if (files === undefined)
    throw invalidPayload('no files to scan: send metadata.files ({ "path": "contents" }) with the request');
  const body = assertValid<SecurityValidateRequest>(SecurityValidateRequest, { files });
  const result = await scanFiles(body.files, deps.log, input.signal);
  const { ok: _ok, ...output } = result;
  const secrets = result.findings.filter((f) => f.category === 'secret');
  await input.emit(
    `Scanned ${result.scanned.files} file(s): ${secrets.length} secret(s), ` +
      `${result.findings.length - secrets.length} configuration finding(s)`,
    { verdict: result.verdict, findings: result.findings.length },
  );
  return {
    output,
    evidence: result.findings.slice(0, 50).map((f) => ({
      claim: `${f.kind} (${f.severity}): ${f.message}`,
      source: `${f.file}:${f.line}`,
      sourceBound: true,
    })),
    conversation: [
      `Verdict ${result.verdict}: ${secrets.length} secret(s) and ${result.findings.length - secrets.length} ` +
        `configuration finding(s) in ${result.scanned.files} file(s); ` +
        `${result.suppressed.placeholder + result.suppressed.fixture + result.suppressed.reference} ` +
        `placeholder, fixture or reference match(es) not reported.`,
      ...result.findings
        .filter((f) => f.severity === 'error')
        .slice(0, 5)
        .map((f) => `${f.file}:${f.line} ${f.message}`),
    ],
    openQuestions:
      result.verdict === 'block'
        ? [
            'Verdict block: rotate every live secret found (removing it from the file is not enough: it ' +
              'stays in history) and fix the blocking configuration before shipping.',
          ]
        : [],
  };
};
