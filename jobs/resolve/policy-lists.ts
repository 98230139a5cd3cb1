import { countryCodes } from './countries.js';
import type { ParsedRule } from './policy-types.js';

/**
 * Vendor and country lists of policy rules: "vendor must be one of Acme, Globex", "only suppliers in Germany or
 * Austria", "no vendors from Russia or Belarus", "German or Austrian suppliers only". Pure.
 */

/** Items of a list: "a signed contract and a W-9", "Acme, Globex or Initech". */
export function splitItems(text: string): string[] {
  return text
    .replace(/[.;]+\s*$/, '')
    .split(/\s*(?:,|;|\/|\bor\b|\band\b|\bplus\b|\bas well as\b|\balong with\b)\s*/i)
    .map((s) => s.trim().replace(/^["'“‘]|["'”’]$/g, ''))
    .filter(Boolean);
}

/** Where a list starts; the last one in the rule wins ("vendor must be one of Acme" → "Acme"). */
const LIST_MARKER = new RegExp(
  [
    String.raw`\bone of\b|\beither\b|:|\blimited to\b|\brestricted to\b|\bonly (?:use|pay|buy from|purchase from`,
    String.raw`|work with|order from)\b|\b(?:must|shall|should|can only|may only) be\b|\b(?:based|located|registered`,
    String.raw`|incorporated|headquartered|domiciled|established) in\b|\bin\b|\bfrom\b|\bexcept\b|\bexcluding\b`,
    String.raw`|\bother than\b|\bnot\b|\b(?:use|pay|buy from|purchase from|work with|order from)\b`,
  ].join(''),
  'gi',
);
const VENDOR_WORD = new RegExp(
  [
    String.raw`\b(?:vendors?|suppliers?|sellers?|payees?|contractors?|merchants?|providers?|pay|buy from`,
    String.raw`|purchase from|work with|beneficiar(?:y|ies)|approved list)\b`,
  ].join(''),
  'i',
);
const NEGATION = new RegExp(
  [
    String.raw`\b(?:no|not|never|exclud\w*|except|other than|prohibited|banned|forbidden|blocked|sanctioned|outside`,
    String.raw`|avoid)\b|n't\b`,
  ].join(''),
  'gi',
);
/** Every country a rule names, in any case ("german", "the EU"), longest phrases first. */
const WORDS = /[\p{L}.'’-]+/gu;

function ruleCountries(rule: string): string[] {
  const words = [...rule.matchAll(WORDS)].map((m) => m[0]);
  const codes: string[] = [];
  for (let i = 0; i < words.length; i++) {
    for (let n = Math.min(4, words.length - i); n >= 1; n--) {
      const found = countryCodes(words.slice(i, i + n).join(' '));
      if (found) {
        codes.push(...found);
        i += n - 1;
        break;
      }
    }
  }
  return [...new Set(codes)];
}

/** A list rule of a rule, or null. An odd number of negations excludes ("outside the EU … not allowed" allows it). */
export function parseList(rule: string): ParsedRule | null {
  const excluded = (rule.match(NEGATION) ?? []).length % 2 === 1;
  const marker = [...rule.matchAll(LIST_MARKER)].pop();
  const items = marker ? splitItems(rule.slice(marker.index + marker[0].length)) : [];
  const listed = items.map((i) => countryCodes(i));
  const codes =
    items.length > 0 && listed.every(Boolean) ? [...new Set(listed.flatMap((c) => c!))] : ruleCountries(rule);
  if (codes.length > 0 && (VENDOR_WORD.test(rule) || /\b(?:countr(?:y|ies)|origin|based|located)\b/i.test(rule)))
    return { kind: excluded ? 'excludedCountries' : 'allowedCountries', codes };
  const names = items.map((i) => i.replace(/^the\s+/i, '').trim()).filter(Boolean);
  if (names.length > 0 && VENDOR_WORD.test(rule) && names.every((n) => n.split(/\s+/).length <= 6))
    return { kind: excluded ? 'excludedVendors' : 'allowedVendors', names };
  return null;
}
