import type { SecretKind } from './schemas.js';

/**
 * The shape of the provider key table (rules-*.ts): one entry per key format,
 * named by gitleaks' rule id for the same format (its config/gitleaks.toml),
 * so a finding can be compared with gitleaks rule by rule. The patterns are
 * facts about key formats; the table, the bounds and the matching are ours.
 */

export interface ProviderRule {
  /** gitleaks' id for the same key format. */
  id: string;
  kind: SecretKind;
  /** What the finding's message calls it ("Google API key"). */
  label: string;
  /**
   * Lower-case words of which a file must hold one before the rule runs (gitleaks' keyword prefilter). For a keyed
   * rule they are also the words of which the key must hold one.
   */
  keywords: readonly string[];
  /** A token rule: matched anywhere; group 1, or else the whole match, is the secret. */
  pattern?: RegExp;
  /** A keyed rule: the whole value assigned to a key that names the provider (`TWITTER_API_SECRET = …`). */
  value?: RegExp;
  /** A keyed rule applies only to keys that also match this (a secret and an id of one shape). */
  keyHint?: RegExp;
  /** Least Shannon entropy of the secret, in bits per character (gitleaks' threshold for the rule). */
  entropy?: number;
  /** Secrets of this shape are test-mode keys (reported as warnings). */
  test?: RegExp;
  /** The rule runs only on files whose path matches. */
  path?: RegExp;
  /** The part of the secret checked for placeholders: group 1 of this (leaves out a format's own fixed runs). */
  random?: RegExp;
  /** Matches of this shape are not keys (gitleaks' allowlist for the rule). */
  notKey?: RegExp;
}

type Options = Pick<ProviderRule, 'keyHint' | 'test' | 'path' | 'random' | 'notKey'> & {
  /** What it is, when it is not a provider's API key or access token (`apiToken`). */
  kind?: SecretKind;
  /** Regex flags besides `g` (token rules) or instead of `i` (keyed rules). */
  flags?: string;
};

/** For writing patterns: `r\`\b(AIza[\w-]{35})\``. */
export const r = String.raw;
/** What may follow a token: a quote, white space, `;`, an escaped newline or the end (gitleaks' terminator). */
export const END = r`(?=[\x60'"\s;]|\\[nr]|$)`;
/** A UUID, for keyed rules whose value is one. */
export const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/**
 * A rule for a token that names its provider by its shape (a prefix, a fixed length). Each pattern runs over up to
 * 1 MiB of untrusted text, so every quantifier is bounded, and where a token may hold characters that are not word
 * characters (`-`, `+`, `/`) its pattern starts after none of them (a lookbehind) rather than at a word boundary: a
 * run of such characters then has one start, and a MiB of `glc_/glc_/…` costs one pass, not one per `glc_`.
 */
export function tok(
  id: string,
  label: string,
  keywords: readonly string[],
  source: string,
  entropy?: number,
  { kind = 'apiToken', flags = '', ...options }: Options = {},
): ProviderRule {
  return { id, kind, label, keywords, pattern: new RegExp(source, `gd${flags}`), entropy, ...options };
}

/** A rule for a value that names its provider only by the key it is assigned to; case-insensitive unless flags say. */
export function key(
  id: string,
  label: string,
  keywords: readonly string[],
  source: string,
  entropy?: number,
  { kind = 'apiToken', flags = 'i', ...options }: Options = {},
): ProviderRule {
  return { id, kind, label, keywords, value: new RegExp(`^(?:${source})$`, flags), entropy, ...options };
}
