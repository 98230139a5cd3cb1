import { entropyBitsPerChar } from '../../shared/secrets.js';
import { isPlaceholder } from './logic.js';
import { scanner } from './own-rules.js';
import type { ProviderRule } from './rule-table.js';
import { APP_RULES } from './rules-apps.js';
import { CLOUD_RULES } from './rules-cloud.js';
import { DEV_RULES } from './rules-dev.js';
import { SPECIAL_RULES, type Found, type SpecialRule } from './special-rules.js';

/**
 * The provider key table run as one secretlint rule, `awp/provider-keys`:
 * each match is reported under the table's id as the message id, and the
 * scanner names the finding `awp/<id>` (gitleaks' id for the same format).
 * One rule, not two hundred, because secretlint sets each rule up again for
 * every file. Like gitleaks, a rule runs only on a file that holds one of its
 * keywords: the file is lower-cased and searched for each keyword once, so
 * most of the table never runs on most files.
 */

export const PROVIDER_RULE_ID = 'awp/provider-keys';
export const PROVIDER_RULES: readonly ProviderRule[] = [...CLOUD_RULES, ...DEV_RULES, ...APP_RULES, ...SPECIAL_RULES];
export const PROVIDER_RULE_IDS = [...new Set(PROVIDER_RULES.map((r) => r.id))];
const BY_ID = new Map(PROVIDER_RULES.map((r) => [r.id, r]));
export const providerRule = (id: string | undefined) => BY_ID.get(id ?? '');

const TOKEN_RULES = PROVIDER_RULES.filter((r) => r.pattern);
// A key named as a secret is tried against the rules that ask for one first (a Bittrex secret and key share a shape).
const KEYED_RULES = PROVIDER_RULES.filter((r) => r.value).sort((a, b) => Number(!a.keyHint) - Number(!b.keyHint));
const KEYWORDS = [...new Set(PROVIDER_RULES.flatMap((r) => r.keywords))];

/**
 * A key (a whole token of at most 80 characters), the separators gitleaks accepts (`=`, `:`, `=>`, `:=`, `?=`, `||`,
 * `,`, `>`), then the value: one token, quoted or bare (a value may begin with `=`, so none is skipped before it).
 * Bounded, and a match starts only at the start of a token.
 */
const ASSIGNMENT =
  /(?<![\w.-])([\w.-]{1,80})[ \t'"]{0,3}(?:=>|:{1,3}=|\?=|\|\||[=:,>])[ \t'"`]{0,5}([^\s'"`,;<>\\]{8,500})/dg;

/**
 * Matches of the table reported for one file at most: secretlint compares every message of a file with every other
 * (its duplicate filter), so a file of tens of thousands of key-shaped strings would take minutes. The scanner says
 * when a file reached it.
 */
export const MAX_MATCHES = 1000;

export interface ProviderMatch extends Found {
  rule: string;
}

/** Whether a candidate is reported, counted as a placeholder, or dropped (not a key, or too little entropy). */
function judge(rule: ProviderRule, content: string, found: Found): ProviderMatch | null {
  const secret = content.slice(found.start, found.end);
  if (rule.notKey?.test(secret)) return null;
  if (found.suppress) return { ...found, rule: rule.id };
  const random = rule.random?.exec(secret)?.slice(1).join('') ?? secret;
  if (isPlaceholder(random)) return { ...found, rule: rule.id, suppress: 'placeholder' };
  if (rule.entropy !== undefined && entropyBitsPerChar(secret) < rule.entropy) return null;
  return { ...found, rule: rule.id, ...(rule.test?.test(secret) ? { variant: 'test' as const } : {}) };
}

/** Every match of the table in one file. `path` is where the file lives (some rules are for some files only). */
export function findProviderKeys(content: string, path: string): ProviderMatch[] {
  const lower = content.toLowerCase();
  const present = new Set(KEYWORDS.filter((k) => lower.includes(k)));
  const runs = (rule: ProviderRule) =>
    (rule.keywords.length === 0 || rule.keywords.some((k) => present.has(k))) && (!rule.path || rule.path.test(path));
  const found: ProviderMatch[] = [];
  const take = (rule: ProviderRule, candidate: Found) => {
    const match = judge(rule, content, candidate);
    if (match) found.push(match);
  };
  const full = () => found.length >= MAX_MATCHES;
  for (const rule of TOKEN_RULES.filter(runs))
    for (const m of content.matchAll(rule.pattern!)) {
      if (full()) return found;
      const [start, end] = m.indices![1] ?? m.indices![0]!;
      take(rule, { start, end });
    }
  const keyed = KEYED_RULES.filter(runs);
  if (keyed.length > 0)
    for (const m of content.matchAll(ASSIGNMENT)) {
      if (full()) return found;
      const name = m[1]!.toLowerCase();
      const value = m[2]!;
      const rule = keyed.find(
        (r) => r.keywords.some((k) => name.includes(k)) && (!r.keyHint || r.keyHint.test(name)) && r.value!.test(value),
      );
      if (rule) take(rule, { start: m.indices![2]![0], end: m.indices![2]![1] });
    }
  for (const rule of SPECIAL_RULES.filter(runs)) for (const f of (rule as SpecialRule).scan(content)) take(rule, f);
  return found.slice(0, MAX_MATCHES);
}

export const providerKeysRule = scanner(PROVIDER_RULE_ID, PROVIDER_RULE_IDS, (source, report) => {
  for (const m of findProviderKeys(source.content, source.filePath ?? ''))
    report(m.rule, m.start, m.end, {
      ...(m.variant ? { variant: m.variant } : {}),
      ...(m.suppress ? { suppress: m.suppress } : {}),
    });
});
