import { setImmediate } from 'node:timers/promises';
import type { Logger } from '../../shared/log.js';
import { verdictOf, type Severity } from '../../shared/schemas/analysis.js';
import {
  SUPPRESSION_REASONS,
  type SecurityFinding,
  type SecurityValidateRequest,
  type SecurityValidateResult,
} from './schemas.js';
import { REDACTED } from '../../shared/secrets.js';
import { MAX_MATCHES } from './provider-keys.js';

// Real Dockerfiles and workflows are a few KiB; the parsers take seconds on a pathological MiB (deeply nested YAML flow
// collections).
const CONFIG_MAX_BYTES = 64 * 1024;
// One file with thousands of keys gives a useful answer in its first hundred; the rest are counted.
const FINDINGS_PER_FILE = 100;

/**
 * POST /v1/security/validate and the security step: every file through the
 * secret scan and, for Dockerfiles and workflows, the config checks. A file
 * the scanner fails on is reported as not checked, by name only: neither the
 * answer nor the log line carries the error's message, which could quote
 * the file.
 */
export async function scanFiles(
  files: SecurityValidateRequest['files'],
  log: Logger,
  signal?: AbortSignal,
): Promise<SecurityValidateResult> {
  const findings: SecurityFinding[] = [];
  const severities: Severity[] = [];
  let omitted = 0;
  const suppressed: SecurityValidateResult['suppressed'] = { placeholder: 0, fixture: 0, reference: 0 };
  const scanErrors: SecurityValidateResult['scanErrors'] = [];
  let bytes = 0;
  // The scanners bring their engines (secretlint; yaml and dockerfile-ast for the configuration checks): loaded on
  // the first scan, so a process that never scans never holds them.
  const [{ configChecks, isConfigFile }, { PRESET_VERSION, RULE_IDS, scanFileForSecrets }] = await Promise.all([
    import('./config-checks.js'),
    import('./secret-scan.js'),
  ]);
  for (const [file, content] of Object.entries(files)) {
    await setImmediate(); // scanning is synchronous work: let the process serve other requests between files
    signal?.throwIfAborted();
    bytes += Buffer.byteLength(content);
    try {
      const scan = await scanFileForSecrets(file, content);
      const ofFile = [...scan.findings];
      for (const reason of SUPPRESSION_REASONS) suppressed[reason] += scan.suppressed[reason] ?? 0;
      const mask = (text: string) => scan.secrets.reduce((t, secret) => t.split(secret).join(REDACTED), text);
      if (scan.capped)
        scanErrors.push({
          file,
          message: `over ${MAX_MATCHES} matches of the provider key rules: the first ${MAX_MATCHES} were checked`,
        });
      if (isConfigFile(file) && Buffer.byteLength(content) > CONFIG_MAX_BYTES) {
        scanErrors.push({
          file,
          message:
            `too large for the configuration checks (over ${CONFIG_MAX_BYTES / 1024} KiB): scanned for secrets ` +
            `only`,
        });
      } else {
        for (const f of configChecks(file, content)) {
          ofFile.push({
            ...f,
            category: 'config',
            file,
            evidence: { ...f.evidence, ...(f.evidence.snippet ? { snippet: mask(f.evidence.snippet) } : {}) },
          });
        }
      }
      for (const f of ofFile) severities.push(f.severity); // a MiB of keys is too many arguments for push(...)
      findings.push(...ofFile.slice(0, FINDINGS_PER_FILE));
      omitted += Math.max(0, ofFile.length - FINDINGS_PER_FILE);
    } catch (err) {
      log.warn(
        { file: file.slice(0, 300), error: err instanceof Error ? err.name : typeof err },
        'security scan: file not checked',
      );
      scanErrors.push({
        file,
        message: 'the scanner failed on this file, so it was not checked; the verdict is at least warn',
      });
    }
  }
  findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  return {
    ok: true,
    verdict: verdictOf([...severities, ...scanErrors.map(() => 'warning' as const)]),
    findings,
    omitted,
    scanned: { files: Object.keys(files).length, bytes },
    suppressed,
    scanErrors,
    rules: { secretlint: PRESET_VERSION, ruleIds: RULE_IDS },
  };
}
