import type { Severity } from '../../shared/schemas/analysis.js';
import type { SecretKind } from './schemas.js';
import { isSecretRef, looksLikeLiteralSecret } from '../../shared/secrets.js';

/**
 * The pure half of secret scanning: what kind of secret a rule's match is,
 * how much it weighs, which matches are examples, fixtures or references
 * rather than leaks, and how a secret is shown (never whole).
 */

/** secretlint rule id → message id → kind. A rule the pinned preset adds later reads as `otherSecret`. */
const KINDS: Record<string, Record<string, SecretKind>> = {
  '@secretlint/secretlint-rule-aws': {
    AWSAccessKeyID: 'awsAccessKeyId',
    AWSSecretAccessKey: 'awsSecretAccessKey',
    AWSAccountID: 'awsAccountId',
  },
  '@secretlint/secretlint-rule-gcp': { PrivateKeyP12: 'gcpServiceAccountKey', PrivateKeyJSON: 'gcpServiceAccountKey' },
  '@secretlint/secretlint-rule-privatekey': { PrivateKey: 'privateKey' },
  '@secretlint/secretlint-rule-npm': {
    PackageJSON_xOauthToken: 'githubToken',
    Npmrc_authToken: 'npmToken',
    NPM_ACCESS_TOKEN: 'npmToken',
  },
  '@secretlint/secretlint-rule-basicauth': { BasicAuth: 'basicAuthCredentials' },
  '@secretlint/secretlint-rule-slack': { SLACK_TOKEN: 'slackToken', IncomingWebhook: 'slackWebhook' },
  '@secretlint/secretlint-rule-sendgrid': { SENDGRID_KEY: 'sendgridApiKey' },
  '@secretlint/secretlint-rule-shopify': { SHOPIFY_KEY: 'shopifyToken' },
  '@secretlint/secretlint-rule-github': { GITHUB_TOKEN: 'githubToken' },
  '@secretlint/secretlint-rule-openai': { OPENAI_TOKEN: 'openaiApiKey' },
  '@secretlint/secretlint-rule-anthropic': { ANTHROPIC_API_KEY: 'anthropicApiKey' },
  '@secretlint/secretlint-rule-linear': { LINEAR_API_TOKEN: 'linearApiKey' },
  '@secretlint/secretlint-rule-1password': { OPS_TOKEN: 'onePasswordToken' },
  '@secretlint/secretlint-rule-database-connection-string': {
    MongoDBConnection: 'databaseConnectionString',
    MySQLConnection: 'databaseConnectionString',
    PostgreSQLConnection: 'databaseConnectionString',
  },
};

export function secretKind(ruleId: string, messageId: string | undefined, ownKind?: SecretKind): SecretKind {
  return ownKind ?? KINDS[ruleId]?.[messageId ?? ''] ?? 'otherSecret';
}

/**
 * The kind of a generic match whose key names it: an AWS secret access key
 * that ends in `+` or `/` escapes the preset's pattern (it wants a word
 * boundary after the key), and the generic rule finds it under its name.
 */
export function genericKind(key: string, value: string): SecretKind {
  if (/aws_?secret_?access_?key|secret_?access_?key/i.test(key) && /^[A-Za-z0-9/+=]{40}$/.test(value))
    return 'awsSecretAccessKey';
  return 'genericHighEntropy';
}

const LABEL: Record<SecretKind, string> = {
  awsAccessKeyId: 'AWS access key ID',
  awsSecretAccessKey: 'AWS secret access key',
  awsAccountId: 'AWS account ID',
  gcpServiceAccountKey: 'GCP service account key',
  privateKey: 'private key block',
  npmToken: 'npm token',
  basicAuthCredentials: 'password in a URL (basic auth)',
  slackToken: 'Slack token',
  slackWebhook: 'Slack incoming webhook URL',
  sendgridApiKey: 'SendGrid API key',
  shopifyToken: 'Shopify access token',
  githubToken: 'GitHub token',
  openaiApiKey: 'OpenAI API key',
  anthropicApiKey: 'Anthropic API key',
  linearApiKey: 'Linear API key',
  onePasswordToken: '1Password service account token',
  databaseConnectionString: 'database connection string with a password',
  stripeKey: 'Stripe secret key',
  jwt: 'JSON Web Token',
  googleApiKey: 'Google API key',
  gitlabToken: 'GitLab token',
  apiToken: 'API key or access token',
  clientSecret: 'client or signing secret',
  clientId: 'client or account identifier',
  webhookUrl: 'webhook URL with its secret',
  password: 'password',
  encryptionKey: 'encryption key',
  kubernetesSecret: 'Kubernetes Secret value',
  genericHighEntropy: 'high-entropy value assigned to a secret-named key',
  otherSecret: 'secret',
};

export const kindLabel = (kind: SecretKind) => LABEL[kind];

/** Identifiers and test-mode keys warn; everything else that looks live blocks. */
export function secretSeverity(kind: SecretKind, variant: 'live' | 'test' | 'expired' = 'live'): Severity {
  if (kind === 'awsAccountId' || kind === 'clientId' || variant !== 'live') return 'warning';
  return 'error';
}

// Words that mark a value as a stand-in (AWS's documented examples end in EXAMPLE; people write "your-api-key-here").
const PLACEHOLDER_WORDS = new RegExp(
  [
    String.raw`example|sample|dummy|placeholder|changeme|change[_-]?me|your[_-]|\byour|xxxx`,
    String.raw`|\*\*\*\*|redacted|insert[_-]?here|replace[_-]?me|lorem|<[^>]*>|\{\{|\$\{`,
  ].join(''),
  'i',
);

/**
 * A value written to stand in for a secret, not a secret: example words, masks, one repeated character, a counting run.
 */
export function isPlaceholder(value: string): boolean {
  if (PLACEHOLDER_WORDS.test(value) || /^(pass(word)?|secret|changeme|postgres|root|admin|user|test)$/i.test(value))
    return true;
  const core = value.replace(/^[A-Za-z]+[_-]+/, ''); // the part after a vendor prefix (sk_live_, ghp_)
  if (/(.)\1{7,}/.test(core)) return true;
  if (/0123456789|123456789|abcdefghij/i.test(core)) return true;
  return new Set(core).size <= 3;
}

/** Files that exist to hold fake credentials: test fixtures and example configs named as such. */
export function isFixturePath(path: string): boolean {
  const p = path.replace(/\\/g, '/').toLowerCase();
  if (/(^|\/)(fixtures?|__fixtures__|testdata|test-data|__mocks__)\//.test(p)) return true;
  const name = p.split('/').pop() ?? p;
  return (
    /\.(example|sample|template|dist|tmpl)$/.test(name) ||
    /(^|[._-])(fixture|fixtures|fake|mock|dummy|example|sample)([._-]|$)/.test(name)
  );
}

/** Values that name where a secret lives rather than holding it. */
export function isReferenceValue(value: string): boolean {
  const v = value.trim();
  return (
    isSecretRef(v) ||
    /^\$\{?[A-Za-z_]/.test(v) || // $VAR, ${VAR}
    /^\$\{\{/.test(v) || // ${{ secrets.X }}
    /^%\(?[A-Za-z_]/.test(v) || // %VAR%, %(name)s
    /^(process\.env|os\.environ|os\.getenv|ENV\[|System\.getenv|Deno\.env)/.test(v) ||
    /^(arn:aws:|projects\/[^/]+\/secrets\/|vault:|op:\/\/|ssm:|secretsmanager:|azurekeyvault:|sm:\/\/)/i.test(v)
  );
}

/**
 * The generic rule's value test: long, mixed, high in entropy (the same test the reference checker uses for pasted
 * credentials).
 */
/**
 * A file path rather than a value: relative or home paths, or absolute ones
 * of two or more plain segments with few capitals (base64 secrets contain
 * `/` too, and are about 40 % capitals).
 */
function looksLikePath(value: string): boolean {
  if (/^(\.{1,2}|~)\//.test(value)) return true;
  if (!/^(\/[A-Za-z0-9._-]+)+\/?$/.test(value) || value.split('/').filter(Boolean).length < 2) return false;
  return (value.match(/[A-Z]/g) ?? []).length / value.length < 0.2;
}

export function looksSecret(value: string): boolean {
  // credentials in URLs are the basic-auth rule's
  if (/^(https?|file):\/\//i.test(value) || looksLikePath(value)) return false;
  // a file name
  if (/\.(ya?ml|json|pem|key|txt|env|crt|cer|p12|pfx|conf|cfg|ini|toml|js|ts|py|rb)$/i.test(value)) return false;
  return looksLikeLiteralSecret(value);
}

/** How a secret is shown: its first characters (at most 4, and at most a quarter of it) and its length. */
export function redactedEvidence(secret: string): { prefix: string; length: number } {
  return { prefix: secret.slice(0, Math.min(4, Math.floor(secret.length / 4))), length: secret.length };
}

/** 1-based line and column of each character offset of a text. */
export function lineColumn(text: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  };
}

export interface RangedMatch {
  range: readonly [number, number];
  ruleId: string;
}

export const GENERIC_RULE_ID = 'awp/generic-high-entropy';

/**
 * One finding per secret: where matches overlap, the service's own rules for a format win over secretlint's preset
 * (whose URL-password rule also takes Sidekiq's URLs, and whose Slack rule stops short of an app token's last part),
 * both over the generic rule, then the earlier rule.
 */
export function dedupe<T extends RangedMatch>(matches: T[]): T[] {
  const rank = (m: T) => (m.ruleId === GENERIC_RULE_ID ? 2 : m.ruleId.startsWith('@secretlint/') ? 1 : 0);
  // Kept matches never overlap, so sorted by start they are sorted by end too: a binary search finds the one a
  // candidate could overlap, and a file of thousands of matches is not compared pair by pair.
  const kept: T[] = [];
  for (const m of [...matches].sort((a, b) => rank(a) - rank(b))) {
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (kept[mid]!.range[1] <= m.range[0]) lo = mid + 1;
      else hi = mid;
    }
    if (lo < kept.length && kept[lo]!.range[0] < m.range[1]) continue;
    kept.splice(lo, 0, m);
  }
  return kept;
}
