import type { Cheerio, CheerioAPI } from 'cheerio';

/**
 * What a page says in words, read from the parsed document (never from the
 * markup as text): its readable text with block boundaries kept as line
 * breaks, its links, and the fees it mentions. Pure.
 */

const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'head',
  'iframe',
  'object',
  'canvas',
  'select',
]);
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'caption',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);

/** The page's visible text, one line per block element, whitespace collapsed; at most `maxChars`. */
export function readableText($: CheerioAPI, maxChars = 100_000): string {
  const parts: string[] = [];
  let size = 0;
  // cheerio does not re-export domhandler's node types; the callback's node is typed by contents() itself.
  const walk = (nodes: Cheerio<any>): void => {
    nodes.contents().each((_, node) => {
      if (size > maxChars) return false;
      if (node.type === 'text') {
        parts.push(node.data);
        size += node.data.length;
      } else if (node.type === 'tag') {
        const name = node.name.toLowerCase();
        if (SKIPPED.has(name) || node.attribs.hidden !== undefined || node.attribs['aria-hidden'] === 'true') return;
        const block = BLOCKS.has(name);
        if (block) parts.push('\n');
        walk($(node));
        if (block) parts.push('\n');
      }
      return undefined;
    });
  };
  walk($.root());
  const lines = parts
    .join('')
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  return lines.join('\n').slice(0, maxChars);
}

/** The page title: `<title>`, else the first heading. */
export function pageTitle($: CheerioAPI): string | null {
  const title =
    $('title').first().text().replace(/\s+/g, ' ').trim() || $('h1').first().text().replace(/\s+/g, ' ').trim();
  return title || null;
}

/** Absolute http(s) links of the page with their text, first occurrence of each, at most `max`. */
export function pageLinks($: CheerioAPI, baseUrl: string, max = 200): Array<{ url: string; text: string }> {
  const links = new Map<string, string>();
  $('a[href]').each((_, el) => {
    if (links.size >= max) return false;
    let url: URL;
    try {
      url = new URL($(el).attr('href')!, baseUrl);
    } catch {
      return undefined;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    if (!links.has(url.href)) links.set(url.href, $(el).text().replace(/\s+/g, ' ').trim().slice(0, 200));
    return undefined;
  });
  return [...links].map(([url, text]) => ({ url, text }));
}

export type FeeKind = 'shipping' | 'fee';

export interface FeeMention {
  kind: FeeKind;
  /** The sentence that mentions it, as the page says it (at most 200 characters). */
  quote: string;
  /** The amount the sentence gives, when it gives one. */
  amount: { value: number; currency: string } | null;
}

const SHIPPING_WORD = /\b(?:shipping|delivery|freight|postage)(?:\s+(?:fees?|charges?|costs?))?\b/i;
const FEE_WORD = new RegExp(
  [
    String.raw`\b(?:handling|service|processing|booking|convenience|admin(?:istration`,
    String.raw`|istrative)?|cleaning|resort|facility|platform|transaction|packaging`,
    String.raw`|restocking|activation|setup|installation)\s+(?:fees?|charges?|costs?)\b`,
    String.raw`|\bsurcharges?\b`,
  ].join(''),
  'i',
);
const ADDED = new RegExp(
  [
    String.raw`(\bplus\b|\+|\bexcl\.?(?=\s)|\bexcluding\b|\bnot included\b|\badditional\b`,
    String.raw`|\bextra\b|\bappl(?:y|ies)\b|\bwill be (?:added|charged)\b`,
    String.raw`|\bcalculated at checkout\b|\bat checkout\b|\bon top\b)`,
  ].join(''),
  'i',
);
const NOT_A_FEE = /\b(free|no|without|included|includes|including|optional|waived)\b/i;
const AMOUNT = /(US\s?\$|\$|USD|€|EUR|£|GBP)\s?(\d[\d.,]*\d|\d)|(\d[\d.,]*\d|\d)\s?(USD|EUR|GBP|dollars|euros?)\b/i;
const CURRENCY: Record<string, string> = {
  $: 'USD',
  us$: 'USD',
  usd: 'USD',
  dollars: 'USD',
  '€': 'EUR',
  eur: 'EUR',
  euro: 'EUR',
  euros: 'EUR',
  '£': 'GBP',
  gbp: 'GBP',
};

/**
 * The amount a fee phrase itself carries: written right before it ("$4.99
 * handling fee", "+ $5 flat shipping") or right after ("handling fee of
 * $4.99", "shipping: $5"). An amount elsewhere in the sentence is not the
 * fee's: "$119.00 plus handling fee" prices the product, not the fee.
 */
function amountOf(sentence: string, phrase: RegExp, parse: (s: string) => number | null): FeeMention['amount'] {
  const amount = AMOUNT.source;
  const before = new RegExp(
    `(?:${amount})\\s*(?:flat\\s+|one-time\\s+|standard\\s+|mandatory\\s+|non-refundable\\s+)?(?:${phrase.source})`,
    'i',
  );
  const after = new RegExp(`(?:${phrase.source})\\s*(?:of|is|:|costs?|at|=|-|–)?\\s*(?:${amount})`, 'i');
  const hit = before.exec(sentence) ?? after.exec(sentence);
  const m = hit ? AMOUNT.exec(hit[0]) : null;
  if (!m) return null;
  const value = parse(m[2] ?? m[3]!);
  const currency = CURRENCY[(m[1] ?? m[4]!).replace(/\s/g, '').toLowerCase()];
  return value === null || !currency ? null : { value, currency };
}

/**
 * Fees and shipping the page's text says are added to the price ("plus a
 * handling fee", "+ $4.99 service fee", "shipping calculated at checkout"),
 * one per sentence, with the amount when the sentence gives one. Sentences
 * that call a fee free, included, optional or waived are not mentions.
 */
export function feeMentions(text: string, parseAmount: (s: string) => number | null): FeeMention[] {
  const mentions: FeeMention[] = [];
  for (const line of text.split('\n')) {
    // A sentence ends at . ! ? ; before a capital or a digit, so abbreviations ("excl. shipping") stay whole.
    for (const sentence of line.split(/(?<=[.!?;])\s+(?=[A-Z0-9"'(])/)) {
      if (sentence.length > 400 || !ADDED.test(sentence) || NOT_A_FEE.test(sentence)) continue;
      const kind: FeeKind | null = FEE_WORD.test(sentence) ? 'fee' : SHIPPING_WORD.test(sentence) ? 'shipping' : null;
      if (kind)
        mentions.push({
          kind,
          quote: sentence.slice(0, 200),
          amount: amountOf(sentence, kind === 'fee' ? FEE_WORD : SHIPPING_WORD, parseAmount),
        });
      if (mentions.length >= 20) return mentions;
    }
  }
  return mentions;
}
