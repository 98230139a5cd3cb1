import { getCountries } from 'libphonenumber-js';

/**
 * Country names for policy checks: the ISO 3166 codes libphonenumber-js knows, named by the runtime's CLDR data
 * (Intl.DisplayNames), plus the everyday names, adjectives and groups buyers write ("UK", "German", "the EU"). Pure.
 */

const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** Names CLDR spells otherwise, by code. */
const ALIASES: Record<string, string[]> = {
  US: ['USA', 'U.S.', 'U.S.A.', 'United States of America', 'America', 'US'],
  GB: ['UK', 'U.K.', 'Great Britain', 'Britain', 'England', 'Scotland', 'Wales', 'Northern Ireland'],
  TR: ['Turkey', 'Turkiye'],
  CZ: ['Czech Republic'],
  NL: ['Holland', 'The Netherlands'],
  KR: ['Korea', 'Republic of Korea'],
  CI: ['Ivory Coast', "Cote d'Ivoire"],
  AE: ['UAE', 'Emirates'],
  MM: ['Burma', 'Myanmar'],
  HK: ['Hong Kong'],
  MO: ['Macau', 'Macao'],
  RU: ['Russian Federation'],
  VN: ['Viet Nam'],
  CD: ['DR Congo', 'DRC', 'Democratic Republic of the Congo'],
  VA: ['Vatican', 'Holy See'],
  MK: ['Macedonia'],
  SZ: ['Swaziland'],
  CV: ['Cape Verde'],
  PS: ['Palestine'],
  BA: ['Bosnia', 'Bosnia and Herzegovina'],
};

/** Adjectives a rule may use instead of the name ("German or Austrian suppliers"). */
const ADJECTIVES: Record<string, string> = {
  american: 'US',
  austrian: 'AT',
  australian: 'AU',
  belgian: 'BE',
  belarusian: 'BY',
  brazilian: 'BR',
  british: 'GB',
  bulgarian: 'BG',
  canadian: 'CA',
  chinese: 'CN',
  croatian: 'HR',
  cypriot: 'CY',
  czech: 'CZ',
  danish: 'DK',
  dutch: 'NL',
  estonian: 'EE',
  finnish: 'FI',
  french: 'FR',
  german: 'DE',
  greek: 'GR',
  hungarian: 'HU',
  indian: 'IN',
  iranian: 'IR',
  irish: 'IE',
  israeli: 'IL',
  italian: 'IT',
  japanese: 'JP',
  latvian: 'LV',
  lithuanian: 'LT',
  luxembourgish: 'LU',
  maltese: 'MT',
  mexican: 'MX',
  norwegian: 'NO',
  polish: 'PL',
  portuguese: 'PT',
  romanian: 'RO',
  russian: 'RU',
  slovak: 'SK',
  slovenian: 'SI',
  spanish: 'ES',
  swedish: 'SE',
  swiss: 'CH',
  turkish: 'TR',
  ukrainian: 'UA',
};

const EU = 'AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE'.split(' ');
/** Groups a rule may name ("suppliers in the EU"). */
const GROUPS: Record<string, string[]> = {
  eu: EU,
  'european union': EU,
  eea: [...EU, 'IS', 'LI', 'NO'],
  'european economic area': [...EU, 'IS', 'LI', 'NO'],
  dach: ['DE', 'AT', 'CH'],
};

/** Every name of every country, with its code: CLDR's name, its short form and the aliases. */
const NAMES: Array<[string, string]> = getCountries().flatMap((code) => {
  const official = REGION_NAMES.of(code);
  const names = new Set([...(official ? [official] : []), ...(ALIASES[code] ?? [])]);
  if (official) {
    names.add(official.replace(/\s*\(.*\)$/, '')); // "Myanmar (Burma)"
    names.add(official.replace(/ SAR China$/, '')); // "Hong Kong SAR China"
    names.add(official.replace(/&/g, 'and')); // "Antigua & Barbuda"
    names.add(official.replace(/’/g, "'"));
  }
  return [...names].map((name) => [name, code] as [string, string]);
});

const BY_LOWER = new Map(NAMES.map(([name, code]) => [name.toLowerCase(), code]));

/** The codes a phrase of a rule names: a country, an adjective or a group ("Germany", "German", "the EU"), or null. */
export function countryCodes(phrase: string): string[] | null {
  const p = phrase
    .trim()
    .replace(/^(?:the|in|from)\s+/i, '')
    .replace(/[-\s]?(?:based|registered|located|only)$/i, '')
    .replace(/[.]+$/, '')
    .toLowerCase();
  if (GROUPS[p]) return GROUPS[p];
  if (ADJECTIVES[p]) return [ADJECTIVES[p]];
  const code = BY_LOWER.get(p) ?? BY_LOWER.get(`the ${p}`);
  return code ? [code] : null;
}

/** The English name of a code, for messages. */
export const countryName = (code: string) => REGION_NAMES.of(code) ?? code;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Longest first, so "Northern Ireland" wins over "Ireland"; case as written (and in capitals), so "chad" or
// "jordan" in running text is not a country. Two-letter aliases ("US", "UK") must stand in capitals.
const MENTION = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${[...new Set(NAMES.flatMap(([n]) => [n, n.toUpperCase()]))]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join('|')})(?![\\p{L}\\p{N}])`,
  'gu',
);
const BY_NAME = new Map(NAMES.flatMap(([name, code]) => [[name, code] as const, [name.toUpperCase(), code] as const]));

/** Countries a document names, with their offsets. */
export function countryMentions(text: string): Array<{ code: string; start: number; end: number; text: string }> {
  return [...text.matchAll(MENTION)]
    .filter((m) => !/\bnew\s$/i.test(text.slice(Math.max(0, m.index - 4), m.index))) // New Mexico, New Jersey
    .map((m) => ({ code: BY_NAME.get(m[0])!, start: m.index, end: m.index + m[0].length, text: m[0] }));
}
