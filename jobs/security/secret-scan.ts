import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintCoreConfig, SecretLintCoreResultMessage } from '@secretlint/types';
import { createRequire } from 'node:module';
import { posix } from 'node:path';
import type { SecretKind, SecurityFinding, SuppressionReason } from './schemas.js';
import {
  dedupe,
  GENERIC_RULE_ID,
  genericKind,
  isFixturePath,
  isPlaceholder,
  kindLabel,
  lineColumn,
  redactedEvidence,
  secretKind,
  secretSeverity,
} from './logic.js';
import { OWN_RULES } from './own-rules.js';
import { MAX_MATCHES, PROVIDER_RULE_ID, PROVIDER_RULE_IDS, providerKeysRule, providerRule } from './provider-keys.js';

/**
 * Secret scanning with secretlint: its recommended preset (AWS, GCP, private
 * keys, npm, basic auth, Slack, SendGrid, Shopify, GitHub, OpenAI,
 * Anthropic, Linear, 1Password, database connection strings) plus the
 * service's own rules (Stripe, JWT, generic high entropy, and the provider
 * key table of provider-keys.ts, which covers the rest of gitleaks' rules).
 * Findings carry where the secret is and a redacted form of it; the value
 * itself never leaves this file's functions.
 */

// secretlint marks each rule's start and end in the process-wide performance timeline, and its profiler keeps every
// entry and searches them all at each end mark: scanning slowed quadratically over the process's life (one 232-file
// scan took 0.7 s, the fifth 17 s) and the marks were never freed. Nothing reads the profile, so it marks nothing.
secretLintProfiler.mark = () => {};

const PRESET_ID = '@secretlint/secretlint-rule-preset-recommend';
export const PRESET_VERSION: string = createRequire(import.meta.url)(`${PRESET_ID}/package.json`).version;
export const RULE_IDS = [
  ...recommended.rules.map((r) => r.meta.id),
  ...OWN_RULES.map((r) => r.meta.id),
  ...PROVIDER_RULE_IDS.map((id) => `awp/${id}`),
];

const OWN_KINDS: Record<string, SecretKind> = { 'awp/stripe': 'stripeKey', 'awp/jwt': 'jwt' };

const CONFIG: SecretLintCoreConfig = {
  rules: [
    // enableIDScanRule: AWS access key IDs (AKIA…) are reported too, not only secret access keys.
    {
      id: PRESET_ID,
      rule: recommended,
      rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }],
    },
    ...[...OWN_RULES, providerKeysRule].map((rule) => ({ id: rule.meta.id, rule })),
  ],
};

/**
 * Where secretlint is told the file lives. Some rules read the file from
 * disk by that path (the GCP rule reads .p12 keystores), so the path is
 * under a directory that does not exist, with `..` removed, and a .p12
 * file is scanned as text.
 */
function virtualSource(path: string, content: string) {
  const clean = posix.normalize(`/${path.replace(/\\/g, '/')}`).replace(/^(\/\.\.)+/, '');
  const ext = posix.extname(clean).toLowerCase();
  return {
    content,
    filePath: `/awp-scan-input-not-on-disk${clean}`,
    ext: ext === '.p12' || ext === '.pfx' ? '.p12-text' : ext || '.txt',
    contentType: 'text' as const,
  };
}

interface Match {
  range: readonly [number, number];
  kind: SecretKind;
  ruleId: string;
  /** The provider table's name for it ("Twilio API key"); else the kind's. */
  label: string;
  variant: 'live' | 'test' | 'expired';
  suppress: SuppressionReason | null;
}

/**
 * Where the secret itself is. Some preset rules report the range from the
 * start of the whole match (the key name before the value) with the value's
 * length (AWS secret keys, npm tokens); the value is in the message data, so
 * the range is moved onto it, within the same line.
 */
function secretRange(content: string, msg: SecretLintCoreResultMessage): readonly [number, number] {
  const [start, end] = msg.range;
  if (msg.ruleId.startsWith('awp/')) return [start, end]; // own rules report the secret itself
  const values = Object.values(msg.data ?? {}).filter(
    (v): v is string => typeof v === 'string' && v.length === end - start,
  );
  if (values.length === 0 || values.includes(content.slice(start, end))) return [start, end];
  const lineStart = content.lastIndexOf('\n', start - 1) + 1;
  const lineEnd = content.indexOf('\n', start);
  for (const v of values) {
    const at = content.slice(lineStart, lineEnd === -1 ? undefined : lineEnd).indexOf(v);
    if (at !== -1) return [lineStart + at, lineStart + at + v.length];
  }
  return [start, end];
}

/** The part that is secret: in a URL with credentials, the password (its host may well be example.com). */
function secretPart(kind: SecretKind, text: string): string {
  if (kind !== 'databaseConnectionString' && kind !== 'basicAuthCredentials') return text;
  return /^[a-z+]+:\/\/[^:/\s@]*:([^@/\s]+)@/i.exec(text)?.[1] ?? text;
}

function toMatch(file: string, content: string, msg: SecretLintCoreResultMessage): Match {
  const data = (msg.data ?? {}) as { variant?: string; suppress?: string; key?: string };
  let range = secretRange(content, msg);
  const provider = msg.ruleId === PROVIDER_RULE_ID ? providerRule(msg.messageId) : undefined;
  const kind =
    provider?.kind ??
    (msg.ruleId === GENERIC_RULE_ID
      ? genericKind(data.key ?? '', content.slice(range[0], range[1]))
      : secretKind(msg.ruleId, msg.messageId, OWN_KINDS[msg.ruleId]));
  if (kind === 'databaseConnectionString') {
    // The preset's URL patterns run on past the closing quote (`app";`): end the secret where the URL ends.
    const trailing = /["'`;,)\]}>]+$/.exec(content.slice(range[0], range[1]))?.[0].length ?? 0;
    range = [range[0], range[1] - trailing];
  }
  const suppress =
    (data.suppress as SuppressionReason | undefined) ??
    (isFixturePath(file)
      ? 'fixture'
      : // the provider table judged its own (a format's fixed runs, like Dropbox's ten A's, are not a placeholder)
        !provider && isPlaceholder(secretPart(kind, content.slice(range[0], range[1])))
        ? 'placeholder'
        : null);
  const variant = data.variant === 'test' || data.variant === 'expired' ? data.variant : 'live';
  const ruleId = provider ? `awp/${provider.id}` : msg.ruleId;
  return { range, kind, ruleId, label: provider?.label ?? kindLabel(kind), variant, suppress };
}

const ADVICE: Record<Match['variant'], string> = {
  live: 'revoke or rotate it now, remove it from the file and its history, and reference it as env:NAME instead',
  test: 'a test-mode key: not live money, but rotate it and keep it out of the repository',
  expired:
    'the token has expired, but its claims are readable and its signing key may sign others: check what it grants',
};

function advice(m: Match): string {
  if (m.kind === 'awsAccountId') return 'not a credential, but it names the account to attack';
  if (m.kind === 'clientId')
    return 'not a credential on its own, but half of one: check that its secret is not committed too';
  return ADVICE[m.variant];
}

export interface FileScan {
  findings: SecurityFinding[];
  suppressed: Partial<Record<SuppressionReason, number>>;
  /** The secrets found, for masking other text about the same file; never put in an answer. */
  secrets: string[];
  /** The provider table stopped at MAX_MATCHES matches in this file. */
  capped: boolean;
}

/** Scans one file. Throws only when secretlint itself fails (the caller reports the file as not checked). */
export async function scanFileForSecrets(file: string, content: string): Promise<FileScan> {
  // maskSecrets stays off: the message data carries what the rules pass (the value, to place the range; the variant of
  // own rules). Message texts are never used.
  const result = await lintSource({
    source: virtualSource(file, content),
    options: { config: CONFIG, maskSecrets: false, noPhysicFilePath: true },
  });
  const matches = dedupe(result.messages.map((m) => toMatch(file, content, m)));
  const at = lineColumn(content);
  const suppressed: FileScan['suppressed'] = {};
  const findings: SecurityFinding[] = [];
  const secrets: string[] = [];
  for (const m of matches) {
    if (m.suppress) {
      suppressed[m.suppress] = (suppressed[m.suppress] ?? 0) + 1;
      continue;
    }
    const { line, column } = at(m.range[0]);
    secrets.push(content.slice(m.range[0], m.range[1]));
    findings.push({
      category: 'secret',
      ruleId: m.ruleId,
      kind: m.kind,
      file,
      line,
      column,
      severity: secretSeverity(m.kind, m.variant),
      message: `${m.label} in ${file} at line ${line}: ${advice(m)}`,
      evidence: redactedEvidence(content.slice(m.range[0], m.range[1])),
    });
  }
  const capped = result.messages.filter((m) => m.ruleId === PROVIDER_RULE_ID).length >= MAX_MATCHES;
  return { findings, suppressed, secrets, capped };
}
