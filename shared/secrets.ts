import { AppError } from './errors.js';
import { RecentMap } from './recent-map.js';

/**
 * Secrets by reference. A request names a credential as `env:NAME`; the
 * server resolves it from its own environment, and only when NAME starts
 * with the configured prefix (`SECRET_ENV_PREFIX`, `AWP_SECRET_` by
 * default), so a reference can never read DATABASE_URL or any other
 * configuration. Every message and detail this module produces names at most
 * the reference, never a resolved value, and never echoes input that failed
 * to parse (it may be the secret itself, pasted where a reference belongs).
 */

/** A reference that passed every check. */
export interface SecretRef {
  /** `env`: the server's environment (operator connectors only); `cred`: the account's credential vault. */
  scheme: 'env' | 'cred';
  /** The environment variable (prefix included), or the credential's name. */
  name: string;
  /** `cred:NAME@version`: that version (rotation keeps the previous one for a grace period). */
  version?: number;
  /** `env:NAME` or `cred:NAME[@version]`, safe to show. */
  ref: string;
}

/** Why a value is not an acceptable reference. */
export type SecretRefProblem =
  'notReference' | 'literalSecret' | 'malformed' | 'unsupportedScheme' | 'outsidePrefix' | 'envNotAllowed';

export type SecretRefCheck = { ok: true; ref: SecretRef } | { ok: false; problem: SecretRefProblem; message: string };

/** A reference refused as out of bounds: `policyViolation` with `details.problem`. */
export class SecretRefRefused extends AppError {
  constructor(
    readonly problem: SecretRefProblem,
    message: string,
  ) {
    super('policyViolation', message, { problem });
    this.name = 'SecretRefRefused';
  }
}

export interface SecretScope {
  /** SECRET_ENV_PREFIX of the config. */
  prefix: string;
  /**
   * Whether `env:` references are admitted: only on platform connectors an
   * operator registers (admin scope). Default true for the operator-side
   * helpers below; every tenant path passes false.
   */
  allowEnv?: boolean;
  /** Where values come from; the process environment unless a test says otherwise. */
  env?: NodeJS.ProcessEnv;
}

/** What a vault reference looks like: a credential name, optionally pinned to a version. */
export const CRED_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const CRED_REF = /^cred:([A-Za-z0-9][A-Za-z0-9._-]{0,99})(?:@([1-9][0-9]{0,8}))?$/;
const ENV_REF = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]{0,30}:/;
// Only names shaped like ordinary environment variables are repeated back in messages.
const SHOWABLE_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;

const KNOWN_SECRET_SHAPES = [
  /^(sk|pk|rk)[-_]/i, // OpenAI, Stripe
  /^(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/,
  /^github_pat_/,
  /^glpat-/,
  /^xox[abprs]-/,
  /^npm_[A-Za-z0-9]{20,}/,
  /^(AKIA|ASIA)[0-9A-Z]{16}$/,
  /^AIza[0-9A-Za-z_-]{20,}/,
  /^SG\.[\w-]{10,}\./,
  /^whsec_/,
  /^awp_[A-Za-z0-9_-]{20,}/,
  /^bearer\s+\S/i,
  /^basic\s+\S/i,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /^eyJ[\w-]{5,}\.eyJ[\w-]{5,}\./, // a JWT
  /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i, // a URL carrying a password
];

/** Shannon entropy of a string's characters, in bits per character. */
export function entropyBitsPerChar(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / s.length) * Math.log2(n / s.length);
  return bits;
}

/**
 * True when a value looks like a credential itself (a known token shape, or
 * a long unbroken high-entropy string) rather than a reference to one: the
 * caller should put it in an `AWP_SECRET_*` variable and send `env:` + name.
 */
export function looksLikeLiteralSecret(value: string): boolean {
  const v = value.trim();
  if (KNOWN_SECRET_SHAPES.some((re) => re.test(v))) return true;
  if (v.length < 20 || /\s/.test(v)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(v)).length;
  return classes >= 2 && entropyBitsPerChar(v) >= 3.5;
}

/** True when `value` has the shape of a reference (`env:NAME` or `cred:NAME[@version]`), whatever its prefix. */
export function isSecretRef(value: unknown): value is string {
  return typeof value === 'string' && (ENV_REF.test(value) || CRED_REF.test(value));
}

const ENV_REFUSED =
  'env: references are reserved for platform connectors an operator registers; ' +
  "store the credential in this account's vault (POST /v1/bridge/credentials) and send cred:NAME";

/**
 * Request validation in one call: is this a reference, and is it in bounds?
 * Never throws; messages are safe to return to the client as they are. An
 * env: reference where env is not allowed is refused before its prefix is
 * looked at, so the answer says nothing about the server's environment.
 */
export function checkSecretRef(value: unknown, scope: Pick<SecretScope, 'prefix' | 'allowEnv'>): SecretRefCheck {
  const allowEnv = scope.allowEnv ?? true;
  const example = allowEnv ? `env:${scope.prefix}NAME or cred:NAME` : 'cred:NAME';
  if (typeof value !== 'string' || value.length === 0 || value.length > 300) {
    return { ok: false, problem: 'malformed', message: `a secret reference is a string like ${example}` };
  }
  const cred = CRED_REF.exec(value);
  if (cred) {
    const version = cred[2] ? Number(cred[2]) : undefined;
    return { ok: true, ref: { scheme: 'cred', name: cred[1]!, ...(version ? { version } : {}), ref: value } };
  }
  const m = ENV_REF.exec(value);
  if (m && !allowEnv) return { ok: false, problem: 'envNotAllowed', message: ENV_REFUSED };
  if (m) {
    const name = m[1]!;
    if (name.startsWith(scope.prefix) && name.length > scope.prefix.length)
      return { ok: true, ref: { scheme: 'env', name, ref: `env:${name}` } };
    const shown = SHOWABLE_NAME.test(name) ? `env:${name}` : 'the reference';
    return {
      ok: false,
      problem: 'outsidePrefix',
      message: `${shown} is out of bounds: only environment variables starting with ${scope.prefix} can be referenced`,
    };
  }
  if (looksLikeLiteralSecret(value)) {
    const where = allowEnv ? `store it on the server as ${scope.prefix}NAME and send env:${scope.prefix}NAME, or ` : '';
    return {
      ok: false,
      problem: 'literalSecret',
      message:
        `this looks like a secret value, not a reference: ${where}store it in the vault (POST ` +
        `/v1/bridge/credentials) and send cred:NAME`,
    };
  }
  if (value.startsWith('env:') || value.startsWith('cred:'))
    return {
      ok: false,
      problem: 'malformed',
      message: `malformed secret reference: expected ${example} (letters, digits and . _ -)`,
    };
  if (SCHEME.test(value))
    return {
      ok: false,
      problem: 'unsupportedScheme',
      message: `out of bounds: only ${allowEnv ? 'env: and ' : ''}cred: secret references are supported (${example})`,
    };
  return { ok: false, problem: 'notReference', message: `not a secret reference: name the secret as ${example}` };
}

/** The reference, or `SecretRefRefused` (policyViolation) saying why it is out of bounds. */
export function parseSecretRef(value: unknown, scope: Pick<SecretScope, 'prefix' | 'allowEnv'>): SecretRef {
  const check = checkSecretRef(value, scope);
  if (!check.ok) throw new SecretRefRefused(check.problem, check.message);
  return check.ref;
}

export type ResolvedSecret = { set: true; ref: SecretRef; value: string } | { set: false; ref: SecretRef };

/**
 * Resolves an `env:` reference on the server. Throws `SecretRefRefused` when
 * it is out of bounds (a `cred:` one too: the vault resolves those,
 * jobs/credentials); reports `set: false` when the variable is missing or
 * empty. The value is remembered for `redactSecrets`, which the logger and
 * the error envelope apply, so it is masked if it ever strays into a log
 * line or error.
 */
export function resolveSecret(value: unknown, scope: SecretScope): ResolvedSecret {
  const ref = parseSecretRef(value, scope);
  if (ref.scheme !== 'env')
    throw new SecretRefRefused(
      'unsupportedScheme',
      `${ref.ref} is resolved by the credential vault, not the environment`,
    );
  const secret = (scope.env ?? process.env)[ref.name];
  if (!secret) return { set: false, ref };
  rememberSecret(secret, 'lasting');
  return { set: true, ref, value: secret };
}

/** Like `resolveSecret`, but an unset variable is an error too (policyViolation naming the reference). */
export function requireSecret(value: unknown, scope: SecretScope): string {
  const resolved = resolveSecret(value, scope);
  if (!resolved.set)
    throw new AppError('policyViolation', `${resolved.ref.ref} is not set on this server`, {
      problem: 'unset',
      ref: resolved.ref.ref,
    });
  return resolved.value;
}

export const REDACTED = '[redacted]';

// Shorter values are not masked by text search: they would blank ordinary words everywhere.
const MIN_MASKED_LENGTH = 6;
/**
 * How many values opened from the vault (and fetched OAuth tokens) stay masked: the most recently used. They come
 * and go with accounts, credentials and token refreshes, so a long-running process would otherwise keep (and scan
 * every log line for) every one it ever saw. Each use renews a value, so one in use stays; one forgotten has not been
 * used here for MASKED_RECENT_MAX newer values. The environment's (`env:` references, master keys) are a fixed few
 * and always stay.
 */
export const MASKED_RECENT_MAX = 2_000;
const lasting = new Set<string>();
let recent = new RecentMap<string, true>(MASKED_RECENT_MAX);
// Every form the values take in text (raw and JSON-escaped), longest first; rebuilt on the next use after a change.
let masked: string[] | null = [];

/**
 * Remembers a secret obtained elsewhere so the logger and error envelope mask it too: `recent` (a vault value, a
 * token) among the most recently used, `lasting` (the process's own configuration) for good.
 */
export function rememberSecret(secret: string, kind: 'recent' | 'lasting' = 'recent'): void {
  if (secret.length < MIN_MASKED_LENGTH) return;
  if (kind === 'lasting') {
    if (!lasting.has(secret)) masked = null;
    lasting.add(secret);
    return;
  }
  if (!recent.has(secret)) masked = null;
  recent.set(secret, true);
}

/** How many values are masked (tests of the bound). */
export function rememberedSecrets(): { recent: number; lasting: number } {
  return { recent: recent.size, lasting: lasting.size };
}

/** From now on at most `max` recent values stay masked (the most recent are kept); tests pass a small one. */
export function limitRecentSecrets(max = MASKED_RECENT_MAX): void {
  recent = recent.resized(max);
  masked = null;
}

function maskedForms(): string[] {
  if (masked) return masked;
  const forms = new Set<string>();
  for (const v of [...lasting, ...recent.keys()]) forms.add(v).add(JSON.stringify(v).slice(1, -1));
  masked = [...forms].sort((a, b) => b.length - a.length);
  return masked;
}

/** Masks every secret value resolved in this process (and any `extra` ones) in `text`. */
export function redactSecrets(text: string, extra: readonly string[] = []): string {
  const forms = maskedForms();
  const values = extra.length ? [...forms, ...extra.filter((e) => e.length > 0)] : forms;
  let out = text;
  for (const v of values) if (out.includes(v)) out = out.split(v).join(REDACTED);
  return out;
}

/** `redactSecrets` over every string inside a JSON-like value (error details, step outputs). */
export function redactSecretsDeep<T>(value: T, extra: readonly string[] = []): T {
  if (maskedForms().length === 0 && extra.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactSecrets(v, extra);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    }
    return v;
  };
  return walk(value) as T;
}
