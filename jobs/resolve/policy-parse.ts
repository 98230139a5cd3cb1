import * as chrono from 'chrono-node/en';
import { currencyOf, NUMBER, parseAmount, SYMBOL } from './facts.js';
import { parseList, splitItems } from './policy-lists.js';
import type { ParsedRule, Subject } from './policy-types.js';

/**
 * A buyer's policy rule read as a check: an amount limit, a vendor or country list, a date limit, a period ("within
 * 30 days"), or required documents. A rule none of these reads is `unparsed`, which the audit keeps open. Pure.
 */

/** What a date or period is about, in order of precedence; each names the words a document labels it with. */
const SUBJECTS: Subject[] = [
  { name: 'delivery', pattern: /\b(?:deliver\w*|ship\w*|dispatch\w*|arriv\w*|eta|lead time)\b/i },
  { name: 'expiry', pattern: /\b(?:expir\w*|valid (?:until|through|thru|till|to)|end date|ends?)\b/i },
  { name: 'signature', pattern: /\b(?:sign\w*|execut\w*)\b/i },
  { name: 'completion', pattern: /\b(?:complet\w*|finish\w*|go-?live|handover)\b/i },
  { name: 'start', pattern: /\b(?:start\w*|commenc\w*|begin\w*|effective)\b/i },
  { name: 'payment', pattern: /\b(?:pay\w*|due|net|terms?|settle\w*)\b/i },
  { name: 'invoice', pattern: /\b(?:invoic\w*|issued?|dated)\b/i },
];
const STOP = new Set([
  'must',
  'should',
  'shall',
  'will',
  'have',
  'with',
  'that',
  'this',
  'from',
  'only',
  'than',
  'later',
]);

/** The subject a rule's words name, or else its first significant word ("installation" matches "install…"). */
function subjectOf(text: string): Subject | null {
  const known = SUBJECTS.find((s) => s.pattern.test(text));
  if (known) return known;
  const word = (text.toLowerCase().match(/[a-z]{4,}/g) ?? []).find((w) => !STOP.has(w));
  return word
    ? { name: word, pattern: new RegExp(String.raw`\b${word.slice(0, Math.min(6, word.length))}\w*`, 'i') }
    : null;
}

/** Conditions and approval steps are workflows, not checks a document can meet. */
const CONDITIONAL = new RegExp(
  [
    String.raw`\b(?:if|when|whenever|unless|in case|provided that)\b|\b(?:needs?|requires?|required|must (?:be`,
    String.raw`|get))\b.*\b(?:approv\w*|sign-?off|authori[sz]\w*|reviewed)\b`,
  ].join(''),
  'i',
);

const DOC_TRIGGERS = [
  /^(?<items>.+?)\s+(?:is|are)\s+(?:required|mandatory|needed|a must|compulsory)\b/i,
  new RegExp(
    [
      String.raw`^(?<items>.+?)\s+(?:must|shall|should|has to|have to|needs? to)\s+be\s+(?:provided|attached|included`,
      String.raw`|submitted|supplied|on file|present|enclosed|uploaded|given|in place|shown)\b`,
    ].join(''),
    'i',
  ),
  /^(?:required|mandatory)(?:\s+documents?)?\s*[:-]\s*(?<items>.+)$/i,
];
/** Weaker wording ("must include …"), tried after the other kinds so "must have a total below 5,000" is an amount. */
const DOC_VERBS = new RegExp(
  [
    String.raw`\b(?:requires?|must (?:include|provide|have|submit|supply|attach|contain|present|upload|send|show)`,
    String.raw`|shall (?:include|provide|have|submit|supply|attach)|needs? to (?:provide|submit|include|have|attach)`,
    String.raw`|needs?|provide|submit|attach|include)\s+(?<items>.+)$`,
  ].join(''),
  'i',
);

const PERIOD = new RegExp(
  [
    String.raw`\b(within|in|no (?:later|more) than|not (?:later|more) than|at most|max(?:imum)?|up to|under|less than`,
    String.raw`|at least|min(?:imum)?|no (?:less|fewer|sooner) than|not (?:less|fewer|sooner) than|net)\s+(\d{1,3})\s*`,
    String.raw`(business |working |calendar )?(days?|weeks?|months?|hours?)\b`,
  ].join(''),
  'i',
);
/** "60 days or less", "30 days minimum". */
const PERIOD_AFTER = new RegExp(
  [
    String.raw`\b(\d{1,3})\s*(business |working |calendar )?(days?|weeks?|months?|hours?)\s+`,
    String.raw`(or less|or fewer|or shorter|or sooner|max(?:imum)?|at most|or more|or longer|at least|min(?:imum)?)\b`,
  ].join(''),
  'i',
);
const NET = /\bnet[\s-]?(\d{1,3})\b/i;
const UNIT_DAYS: Record<string, number> = { day: 1, week: 7, month: 30 };

/** Days of "30 days", "4 weeks", "10 business days", "48 hours" (a month is 30 days; a business week 5 of 7). */
export function periodDays(n: number, unit: string, business = false): number {
  const u = unit.toLowerCase().replace(/s$/, '');
  if (u === 'hour') return Math.ceil(n / 24);
  const days = n * UNIT_DAYS[u]!;
  return business ? Math.ceil((days * 7) / 5) : days;
}

const AT_LEAST = /^(?:at least|min|no less|no fewer|no sooner|not less|not fewer|not sooner|or more|or longer)/i;

function parsePeriod(rule: string): ParsedRule | null {
  const before = PERIOD.exec(rule);
  const after = before ? null : PERIOD_AFTER.exec(rule);
  const net = before || after ? null : NET.exec(rule);
  if (net)
    return { kind: 'period', subject: SUBJECTS.find((s) => s.name === 'payment')!, op: 'lte', days: Number(net[1]) };
  if (before) {
    const subject = subjectOf(rule.slice(0, before.index) || rule);
    const days = periodDays(Number(before[2]), before[4]!, /business|working/i.test(before[3] ?? ''));
    return subject && { kind: 'period', subject, op: AT_LEAST.test(before[1]!) ? 'gte' : 'lte', days };
  }
  if (!after) return null;
  const subject = subjectOf(rule.slice(0, after.index) || rule);
  const days = periodDays(Number(after[1]), after[3]!, /business|working/i.test(after[2] ?? ''));
  return subject && { kind: 'period', subject, op: AT_LEAST.test(after[4]!) ? 'gte' : 'lte', days };
}

/** An explicit calendar date (a month name or digits), not a relative one ("within 30 days"). */
export const EXPLICIT_DATE = new RegExp(
  [
    String.raw`\d{1,4}[-/.]\d{1,2}|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\b`,
    String.raw`|\b\d{1,2}(?:st|nd|rd|th)\b`,
  ].join(''),
  'i',
);
const DATE_OPS: Array<[RegExp, 'onOrBefore' | 'before' | 'onOrAfter' | 'after']> = [
  [
    new RegExp(
      [
        String.raw`\b(?:on or after|no earlier than|not earlier than|not before|from|starting|as of|valid (?:until`,
        String.raw`|through|thru|till|to)|not expire before|expir\w* (?:on or )?after)$`,
      ].join(''),
      'i',
    ),
    'onOrAfter',
  ],
  [
    /\b(?:on or before|no later than|not later than|not after|by|latest|until|till|deadline|due(?: on| by)?)$/i,
    'onOrBefore',
  ],
  [/\b(?:before|prior to|earlier than)$/i, 'before'],
  [/\b(?:after|later than)$/i, 'after'],
];

function parseDate(rule: string): ParsedRule | null {
  const found = chrono
    .parse(rule, new Date(Date.UTC(2000, 0, 1)), { forwardDate: false })
    .find((r) => r.start.isCertain('day') && r.start.isCertain('month') && EXPLICIT_DATE.test(r.text));
  if (!found) return null;
  if (!found.start.isCertain('year')) return { kind: 'unparsed', reason: 'its date has no year' };
  const before = rule
    .slice(0, found.index)
    .replace(/\s*(?:the|on|:)?\s*$/i, '')
    .trim();
  const op = DATE_OPS.find(([re]) => re.test(before))?.[1];
  const subject = subjectOf(before);
  if (!op || !subject) return { kind: 'unparsed', reason: 'it names a date but not whether before or after what' };
  const d = found.start;
  const date = [d.get('year'), d.get('month'), d.get('day')].map((n) => String(n).padStart(2, '0')).join('-');
  return { kind: 'dateLimit', subject, op, date };
}

const MULTIPLIERS: Record<string, number> = { k: 1e3, thousand: 1e3, m: 1e6, mn: 1e6, million: 1e6 };
const RULE_AMOUNT = new RegExp(
  [
    String.raw`(?:(${SYMBOL})|\b([A-Z]{3}))?\s?(${NUMBER})(?:\s?(k|mn?|thousand|million)\b)?(?:\s?(${SYMBOL}`,
    String.raw`|[A-Za-z]{3,7}\b))?`,
  ].join(''),
  'g',
);
const UNIT_AFTER = new RegExp(
  [
    String.raw`^\s*(?:%|percent|per ?cent|days?|weeks?|months?|years?|hours?|quotes?|bids?|suppliers?|vendors?`,
    String.raw`|items?|units?|pieces?|employees?|people|staff|times|references?|documents?|pages?|kg|km|miles?`,
    String.raw`|lbs?)\b`,
  ].join(''),
  'i',
);
/** A comparator just before the amount; the noun-like ones may take two words first ("minimum order value 500"). */
const OPS: Array<[RegExp, 'lte' | 'lt' | 'gte' | 'gt']> = [
  [/(?:exceed(?:s|ing)?|more than|greater than|higher than|over|above|>)$/i, 'gt'],
  [/(?:up to|at most|capped at|limit(?:ed)? to|<=|≤)$/i, 'lte'],
  [/\b(?:max(?:imum)?|cap|limit|budget|ceiling)(?:\s+[\w-]+){0,2}$/i, 'lte'],
  [/(?:below|under|less than|lower than|beneath|<)$/i, 'lt'],
  [/(?:at least|>=|≥)$/i, 'gte'],
  [/\bmin(?:imum)?(?:\s+[\w-]+){0,2}$/i, 'gte'],
];
/** Negations before the comparator; an odd number turns it ("must not exceed", "no single invoice may be over"). */
const NEGATIONS = /\b(?:not|no|never|cannot|none)\b|n't\b/gi;
const FLIP = { gt: 'lte', lte: 'gt', lt: 'gte', gte: 'lt' } as const;
const SUM = new RegExp(
  [
    String.raw`\b(?:combined|in total|altogether|aggregate|across all|cumulative|overall|total spend|sum of|whole`,
    String.raw`|entire|budget)\b`,
  ].join(''),
  'i',
);

/** Words of a rule's subject that name no line of a document, only the rule itself or the document's total. */
const GENERIC_AMOUNT_WORD = new RegExp(
  `^(?:${[
    'the a an each every any all one single our your their its only and or this that total totals amount amounts',
    'value values order orders invoice invoices payment payments price prices cost costs sum purchase purchases',
    'spend spending budget quote quotes quotation bill bills contract contracts fee fees charge charges limit cap',
    'vendor vendors supplier suppliers item items combined overall whole entire aggregate cumulative net gross',
    'grand due payable monthly annual yearly euro euros dollar dollars pound pounds usd eur gbp',
  ]
    .join(' ')
    .replace(/ /g, '|')})$`,
  'i',
);

/** Where the subject ends: "Purchases | from new suppliers", "Freight charges | should be", "Spend | per quarter". */
const SUBJECT_END = new RegExp(
  String.raw`\b(?:${[
    'from to for per by of with in on at must should shall may might can cannot could will would is are cost costs',
    'stay stays remain remains exceed exceeds not no never above below under over up than more less max maximum',
    'min minimum capped limited',
  ]
    .join(' ')
    .replace(/ /g, '|')})\b`,
  'i',
);

/** "Freight charges should be at least 300 EUR": the line a rule limits, from the subject before its amount. */
function amountItem(before: string): string | undefined {
  const subject = before.slice(0, SUBJECT_END.exec(before)?.index ?? before.length);
  const words = (subject.match(/[a-z][a-z-]{2,}/gi) ?? []).filter((w) => !GENERIC_AMOUNT_WORD.test(w));
  return words.length > 0 ? words.join(' ').toLowerCase() : undefined;
}

function parseAmountLimit(rule: string): ParsedRule | null {
  for (const m of rule.matchAll(RULE_AMOUNT)) {
    const after = rule.slice(m.index + m[0].length);
    const suffix = m[5] ? currencyOf(m[5]) : null;
    const tail = m[5] && !suffix ? `${m[5]}${after}` : after;
    if (UNIT_AFTER.test(tail)) continue;
    const prefix = currencyOf(m[1] ?? m[2] ?? '');
    const before = rule
      .slice(0, prefix ? m.index : m.index + m[0].indexOf(m[3]!))
      .replace(/\s*(?:of|:)?\s*$/i, '')
      .trim();
    const found = OPS.find(([re]) => re.test(before));
    let op = found?.[1];
    if (found && (before.replace(found[0], '').match(NEGATIONS) ?? []).length % 2 === 1) op = FLIP[found[1]];
    op ??= /^\s*(?:or less|or lower|or below|or under|max(?:imum)?|at most)\b/i.test(tail)
      ? 'lte'
      : /^\s*(?:or more|or higher|or above|min(?:imum)?|at least)\b/i.test(tail)
        ? 'gte'
        : undefined;
    if (!op) continue;
    // "Purchases over 10k EUR are not allowed": the rule forbids what the comparator names.
    if (/^[^.;]*\b(?:not (?:allowed|permitted|accepted)|prohibited|forbidden|banned)\b/i.test(tail)) op = FLIP[op];
    const limit = parseAmount(m[3]!) * (MULTIPLIERS[(m[4] ?? '').toLowerCase()] ?? 1);
    const item = amountItem(before);
    const scope = SUM.test(rule) ? 'sum' : 'each';
    return { kind: 'amountLimit', op, limit, currency: prefix ?? suffix, scope, ...(item ? { item } : {}) };
  }
  return null;
}

function requiredDocuments(items: string): ParsedRule {
  const names = splitItems(items).map((raw) => ({
    signed: /\b(?:signed|executed|countersigned)\b/i.test(raw),
    name: raw
      .replace(/\b(?:signed|executed|countersigned|valid|current|up-to-date|completed|original)\b/gi, '')
      .replace(/^\s*(?:(?:a|an|the|their|its|his|her|our|your|one|copy of|copies of|a copy of)\s+)+/i, '')
      .replace(/\s+(?:from|for|by|before|prior to|on file|per|with each|in place|of the vendor)\b.*$/i, '')
      .replace(/\s+/g, ' ')
      .trim(),
  }));
  return { kind: 'requiredDocument', items: names.filter((n) => n.name.length > 1) };
}

/** The check a rule is read as. */
export function parseRule(rule: string): ParsedRule {
  const text = rule.trim();
  if (CONDITIONAL.test(text)) return { kind: 'unparsed', reason: 'it is a condition or an approval step' };
  const strongDocs = DOC_TRIGGERS.map((re) => re.exec(text)?.groups?.items).find(Boolean);
  if (strongDocs) return requiredDocuments(strongDocs);
  const read = parsePeriod(text) ?? parseDate(text) ?? parseAmountLimit(text) ?? parseList(text);
  if (read) return read;
  const weakDocs = DOC_VERBS.exec(text)?.groups?.items;
  return weakDocs
    ? requiredDocuments(weakDocs)
    : { kind: 'unparsed', reason: 'it names no amount, vendor, country, date, period or document' };
}
