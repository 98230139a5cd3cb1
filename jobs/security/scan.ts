import type { Logger } from '../../shared/log.js';
import { verdictOf } from '../../shared/schemas/analysis.js';
import { SUPPRESSION_REASONS, type SecurityFinding, type SecurityValidateRequest, type SecurityValidateResult } from '../../shared/schemas/security.js';
import { REDACTED } from '../../shared/secrets.js';
import { configChecks } from './config-checks.js';
import { PRESET_VERSION, RULE_IDS, scanFileForSecrets } from './secret-scan.js';

/**
 * POST /v1/security/validate and the security step: every file through the
 * secret scan and, for Dockerfiles and workflows, the config checks. A file
 * the scanner fails on is reported as not checked, by name only: neither the
 * answer nor the log line carries the error's message, which could quote
 * the file.
 */
export async function scanFiles(files: SecurityValidateRequest['files'], log: Logger, signal?: AbortSignal): Promise<SecurityValidateResult> {
  const findings: SecurityFinding[] = [];
  const suppressed: SecurityValidateResult['suppressed'] = { placeholder: 0, fixture: 0, reference: 0 };
  const scanErrors: SecurityValidateResult['scanErrors'] = [];
  let bytes = 0;
  for (const [file, content] of Object.entries(files)) {
    signal?.throwIfAborted();
    bytes += Buffer.byteLength(content);
    try {
      const scan = await scanFileForSecrets(file, content);
      findings.push(...scan.findings);
      for (const reason of SUPPRESSION_REASONS) suppressed[reason] += scan.suppressed[reason] ?? 0;
      const mask = (text: string) => scan.secrets.reduce((t, secret) => t.split(secret).join(REDACTED), text);
      for (const f of configChecks(file, content)) {
        findings.push({ ...f, category: 'config', file, evidence: { ...f.evidence, ...(f.evidence.snippet ? { snippet: mask(f.evidence.snippet) } : {}) } });
      }
    } catch (err) {
      log.warn({ file: file.slice(0, 300), error: err instanceof Error ? err.name : typeof err }, 'security scan: file not checked');
      scanErrors.push({ file, message: 'the scanner failed on this file, so it was not checked; the verdict is at least warn' });
    }
  }
  findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  return {
    ok: true,
    verdict: verdictOf([...findings.map((f) => f.severity), ...scanErrors.map(() => 'warning' as const)]),
    findings,
    scanned: { files: Object.keys(files).length, bytes },
    suppressed,
    scanErrors,
    rules: { secretlint: PRESET_VERSION, ruleIds: RULE_IDS },
  };
}
