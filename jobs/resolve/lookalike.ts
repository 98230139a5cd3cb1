import { remove as foldConfusables } from 'confusables';
import { distance } from 'fastest-levenshtein';
import { domainToUnicode } from 'node:url';
import { parse } from 'tldts';

/**
 * Lookalike domains: a registrable domain (tldts, the Public Suffix List)
 * that is not a commonly impersonated brand's own but reads as one. Pure.
 */

/**
 * Brands most often impersonated in phishing (the brand rankings of the
 * APWG and of the large mail filters' quarterly reports), with their own
 * registrable domains. A domain on this list is never a lookalike.
 */
export const IMPERSONATED_BRANDS: Array<{ brand: string; domains: string[] }> = [
  { brand: 'paypal', domains: ['paypal.com', 'paypal.me'] },
  { brand: 'microsoft', domains: ['microsoft.com', 'live.com', 'outlook.com', 'office.com', 'microsoftonline.com'] },
  { brand: 'apple', domains: ['apple.com', 'icloud.com'] },
  {
    brand: 'amazon',
    domains: [
      'amazon.com',
      'amazon.co.uk',
      'amazon.de',
      'amazon.fr',
      'amazon.it',
      'amazon.es',
      'amazon.ca',
      'amazon.co.jp',
    ],
  },
  { brand: 'google', domains: ['google.com', 'gmail.com', 'youtube.com'] },
  { brand: 'netflix', domains: ['netflix.com'] },
  { brand: 'facebook', domains: ['facebook.com', 'fb.com', 'meta.com'] },
  { brand: 'instagram', domains: ['instagram.com'] },
  { brand: 'whatsapp', domains: ['whatsapp.com'] },
  { brand: 'linkedin', domains: ['linkedin.com'] },
  { brand: 'dhl', domains: ['dhl.com', 'dhl.de'] },
  { brand: 'fedex', domains: ['fedex.com'] },
  { brand: 'ups', domains: ['ups.com'] },
  { brand: 'usps', domains: ['usps.com'] },
  { brand: 'chase', domains: ['chase.com'] },
  { brand: 'wellsfargo', domains: ['wellsfargo.com'] },
  { brand: 'bankofamerica', domains: ['bankofamerica.com'] },
  { brand: 'citibank', domains: ['citibank.com', 'citi.com'] },
  { brand: 'hsbc', domains: ['hsbc.com', 'hsbc.co.uk'] },
  { brand: 'barclays', domains: ['barclays.co.uk', 'barclays.com'] },
  { brand: 'coinbase', domains: ['coinbase.com'] },
  { brand: 'binance', domains: ['binance.com'] },
  { brand: 'adobe', domains: ['adobe.com'] },
  { brand: 'docusign', domains: ['docusign.com', 'docusign.net'] },
  { brand: 'dropbox', domains: ['dropbox.com'] },
  { brand: 'ebay', domains: ['ebay.com', 'ebay.co.uk', 'ebay.de'] },
  { brand: 'irs', domains: ['irs.gov'] },
  { brand: 'stripe', domains: ['stripe.com'] },
  { brand: 'steam', domains: ['steampowered.com', 'steamcommunity.com'] },
];

const OWN = new Set(IMPERSONATED_BRANDS.flatMap((b) => b.domains));

/** ASCII tricks that read as another letter at a glance, folded to what they imitate. */
const ASCII_TRICKS: Array<[RegExp, string]> = [
  [/rn/g, 'm'],
  [/vv/g, 'w'],
  [/cl/g, 'd'],
  [/0/g, 'o'],
  [/1/g, 'l'],
  [/3/g, 'e'],
  [/5/g, 's'],
  [/\$/g, 's'],
];

export interface Lookalike {
  domain: string;
  brand: string;
  imitates: string;
  how: 'unicodeConfusable' | 'asciiTrick' | 'editDistance' | 'brandInName';
}

/** The registrable domain of a host, URL or e-mail address (null when it has none under the Public Suffix List). */
export function registrableDomain(hostOrUrl: string): string | null {
  const at = hostOrUrl.lastIndexOf('@');
  const input = at >= 0 && !hostOrUrl.includes('/') ? hostOrUrl.slice(at + 1) : hostOrUrl;
  const parsed = parse(input.toLowerCase(), { allowPrivateDomains: true });
  return parsed.domain && (parsed.isIcann || parsed.isPrivate) ? parsed.domain : null;
}

/** The label left of the public suffix: "paypal" of "paypal.co.uk". */
function nameOf(domain: string): string {
  const suffix = parse(domain).publicSuffix ?? '';
  return domain.slice(0, domain.length - suffix.length - 1);
}

/**
 * Whether a registrable domain imitates a listed brand. Checked in order of
 * certainty: Unicode confusables folded (раypal with a Cyrillic а), ASCII
 * tricks (rnicrosoft, paypa1), the brand as one label of a longer name
 * (paypal-secure), then an edit distance of 1 (2 for names of 8 letters or more).
 */
export function lookalikeOf(domain: string, host?: string): Lookalike | null {
  // xn--pypal-4ve.com is read as the Unicode it shows
  const d = domainToUnicode(domain.toLowerCase()) || domain.toLowerCase();
  if (OWN.has(d)) return null;
  return nameLookalike(d, nameOf(d)) ?? subdomainLookalike(d, host);
}

/** "аpple.com-id.support": a brand spelled (or imitated) as a label left of someone else's registrable domain. */
function subdomainLookalike(d: string, host: string | undefined): Lookalike | null {
  if (!host) return null;
  const h = (domainToUnicode(host.toLowerCase()) || host.toLowerCase()).replace(/\.$/, '');
  if (!h.endsWith(`.${d}`)) return null;
  for (const label of h.slice(0, -d.length - 1).split('.')) {
    const folded = ASCII_TRICKS.reduce((x, [re, to]) => x.replace(re, to), foldConfusables(label).toLowerCase());
    const brand = IMPERSONATED_BRANDS.find((b) => b.brand === folded && b.brand.length >= 4);
    if (brand)
      return {
        domain: d,
        brand: brand.brand,
        imitates: brand.domains[0]!,
        how: folded !== label ? (foldConfusables(label) !== label ? 'unicodeConfusable' : 'asciiTrick') : 'brandInName',
      };
  }
  return null;
}

function nameLookalike(d: string, raw: string): Lookalike | null {
  const folded = foldConfusables(raw).toLowerCase();
  const tricked = ASCII_TRICKS.reduce((s, [re, to]) => s.replace(re, to), folded);
  for (const { brand, domains } of IMPERSONATED_BRANDS) {
    const imitates = domains[0]!;
    if (folded !== raw && (folded === brand || tricked === brand))
      return { domain: d, brand, imitates, how: 'unicodeConfusable' };
    if (tricked === brand && raw !== brand) return { domain: d, brand, imitates, how: 'asciiTrick' };
  }
  for (const { brand, domains } of IMPERSONATED_BRANDS) {
    const imitates = domains[0]!;
    const labels = tricked.split(/[-.]/);
    if (brand.length >= 3 && labels.length > 1 && labels.includes(brand))
      return { domain: d, brand, imitates, how: 'brandInName' };
    for (const name of new Set([brand, ...domains.map(nameOf)])) {
      const limit = name.length >= 8 ? 2 : 1;
      for (const part of new Set([tricked, ...labels])) {
        const apart = distance(part, name);
        if (name.length >= 5 && part.length >= 5 && apart > 0 && apart <= limit)
          return { domain: d, brand, imitates, how: 'editDistance' };
      }
    }
  }
  return null;
}
