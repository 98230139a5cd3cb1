import * as chrono from 'chrono-node/en';
import { findPhoneNumbersInText } from 'libphonenumber-js';
import { countryMentions } from './countries.js';
import { factsOf, NUMBER, parseAmount, type Span } from './facts.js';
import { EXPLICIT_DATE, periodDays } from './policy-parse.js';
import type { Subject } from './policy-types.js';

/**
 * What policy checks read in a document, each with its span: its total, the dates and periods a subject is labelled
 * with, the vendor's parties and countries, its heading and its signature. Pure.
 */

const span = (text: string, start: number, end: number): Span => ({ text: text.slice(start, end), start, end });
const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;

const TOTAL_LABEL = new RegExp(
  [
    String.raw`\b(?:grand total|total(?: amount)?(?: due| payable)?|amount (?:due|payable)|balance due|invoice total`,
    String.raw`|total price|sum due|to pay)\b[^\n\d]{0,20}$`,
  ].join(''),
  'i',
);

/** Amounts that are no charge: an insurance's cover, a liability or credit limit, a company's capital or turnover. */
const NOT_A_CHARGE = new RegExp(
  [
    String.raw`\b(?:coverage|cover|covered|sum insured|insured (?:sum|amount|value)|liability|deductible`,
    String.raw`|credit limit|share capital|capital|turnover|revenue|net worth)\b`,
  ].join(''),
  'i',
);

const labelOf = (text: string, at: number) => text.slice(lineStart(text, at), at);

/** The amounts a document charges, each with its span (cover, limits and capital left out). */
function chargedAmounts(text: string) {
  return factsOf(text)
    .filter((f) => f.kind === 'amount' && !NOT_A_CHARGE.test(labelOf(text, f.span.start)))
    .map((f) => ({ value: f.amount!.value, currency: f.amount!.currency, span: f.span }));
}

/** The amounts on lines labelled with one of `item`'s words ("Freight: 250.00 EUR" for "freight"). */
export function itemAmounts(text: string, item: string) {
  const words = item.split(' ').map((w) => w.replace(/[^a-z-]/gi, ''));
  const label = new RegExp(String.raw`\b(?:${words.join('|')})`, 'i');
  return chargedAmounts(text).filter((a) => label.test(labelOf(text, a.span.start)));
}

/** A document's total: its largest amount labelled as a total, else its largest amount (cover and limits aside). */
export function documentTotal(text: string): { value: number; currency: string | null; span: Span } | null {
  const amounts = chargedAmounts(text);
  // "Total: 4,800.00" without a currency still states the total.
  for (const m of text.matchAll(new RegExp(String.raw`(?<=[:\s])(${NUMBER})(?![\d.,]*\s?(?:[A-Z]{3}|[$€£¥₹]))`, 'g'))) {
    if (
      TOTAL_LABEL.test(text.slice(lineStart(text, m.index), m.index)) &&
      !amounts.some((a) => a.span.start <= m.index && m.index < a.span.end)
    )
      amounts.push({ value: parseAmount(m[1]!), currency: null, span: span(text, m.index, m.index + m[0].length) });
  }
  const labelled = amounts.filter((a) => TOTAL_LABEL.test(text.slice(lineStart(text, a.span.start), a.span.start)));
  const pool = labelled.length > 0 ? labelled : amounts;
  return pool.reduce<(typeof pool)[number] | null>((best, a) => (!best || a.value > best.value ? a : best), null);
}

/** The explicit dates of a text, each with the words that label it (since the line start or the previous date). */
function labelledDates(text: string): Array<{ label: string; span: Span; date: string | null }> {
  let previous = 0;
  return chrono
    .parse(text, new Date(Date.UTC(2000, 0, 1)), { forwardDate: false })
    .filter((r) => r.start.isCertain('day') && r.start.isCertain('month') && EXPLICIT_DATE.test(r.text))
    .map((r) => {
      const label = text.slice(Math.max(lineStart(text, r.index), previous), r.index);
      previous = r.index + r.text.length;
      const d = r.start;
      const iso = [d.get('year'), d.get('month'), d.get('day')].map((n) => String(n).padStart(2, '0')).join('-');
      return { label, span: span(text, r.index, previous), date: d.isCertain('year') ? iso : null };
    });
}

/** Dates labelled with the subject ("Delivery date: 15 April 2026"); `date` is null when the year is not stated. */
export function subjectDates(text: string, subject: Subject) {
  return labelledDates(text).filter((d) => subject.pattern.test(d.label));
}

const PERIOD = /\b(\d{1,3})\s*(business |working |calendar )?(days?|weeks?|months?|hours?)\b(?:\s+net\b)?/gi;
const NET = /\bnet[\s-]?(\d{1,3})\b(?!\s*(?:days?|weeks?|months?))/gi;
const AT_ONCE = /\b(?:due|payable) (?:on|upon) receipt\b|\b(?:due|payable) immediately\b/gi;
const REFERENCE_DATE = new RegExp(
  [
    String.raw`\b(?:invoice date|date of (?:invoice|issue|order)|issue date|issued(?: on)?|order date`,
    String.raw`|ordered(?: on)?|po date|dated|date)\W*$`,
  ].join(''),
  'i',
);

/**
 * Periods a text states for the subject ("Payable within 14 days", "Net 30", "Lead time: 6 weeks"), each labelled by
 * its own clause; else the days from a reference date (invoice or order date) to the subject's date.
 */
export function subjectPeriods(text: string, subject: Subject): Array<{ span: Span; days: number }> {
  const clause = (at: number) => {
    const before = text.slice(lineStart(text, at), at);
    return before.slice(Math.max(...[...before.matchAll(/[,;.](?:\s|$)/g)].map((m) => m.index + 1), 0));
  };
  const stated = [
    ...[...text.matchAll(PERIOD)].map((m) => ({
      at: m.index,
      end: m.index + m[0].length,
      days: periodDays(Number(m[1]), m[3]!, /business|working/i.test(m[2] ?? '')),
    })),
    ...[...text.matchAll(NET)].map((m) => ({ at: m.index, end: m.index + m[0].length, days: Number(m[1]) })),
    ...[...text.matchAll(AT_ONCE)].map((m) => ({ at: m.index, end: m.index + m[0].length, days: 0 })),
  ]
    .filter((p) => subject.pattern.test(clause(p.at) + text.slice(p.at, p.end)))
    .map((p) => ({ span: span(text, p.at, p.end), days: p.days }));
  if (stated.length > 0) return stated;
  const dates = labelledDates(text).filter((d) => d.date);
  const due = dates.find((d) => subject.pattern.test(d.label));
  const from = dates.find((d) => d !== due && REFERENCE_DATE.test(d.label) && !subject.pattern.test(d.label));
  if (!due || !from) return [];
  const days = Math.round((Date.parse(due.date!) - Date.parse(from.date!)) / 86_400_000);
  return [{ span: span(text, from.span.start, due.span.end), days }];
}

/** Lines about the customer ("Bill to:", "Ship to:" and the address lines under them): not the vendor's countries. */
function customerRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let open: number | null = null;
  let at = 0;
  for (const line of text.split('\n')) {
    const label = /^\s*([\p{L} ]{2,30}):/u.exec(line)?.[1];
    if (
      label &&
      new RegExp(
        [
          String.raw`\b(?:bill(?:ed)? to|ship(?:ped)? to|deliver(?:y)? to|sold to|invoice(?:d)? to|customer|client`,
          String.raw`|buyer|purchaser|recipient)\b`,
        ].join(''),
        'i',
      ).test(label)
    )
      open ??= at;
    else if (open !== null && (label || line.trim() === '')) {
      ranges.push([open, at]);
      open = null;
    }
    at += line.length + 1;
  }
  if (open !== null) ranges.push([open, text.length]);
  return ranges;
}

/** Countries a document gives for its vendor: named (outside the customer's lines), an IBAN's, a phone number's. */
export function countryEvidence(text: string): Array<{ code: string; span: Span; how: string }> {
  const customer = customerRanges(text);
  const outside = (at: number) => !customer.some(([s, e]) => at >= s && at < e);
  return [
    ...countryMentions(text)
      .filter((m) => outside(m.start))
      .map((m) => ({ code: m.code, span: span(text, m.start, m.end), how: 'named' })),
    ...factsOf(text)
      .filter((f) => f.kind === 'bankDetails' && /^[A-Z]{2}\d/.test(f.value) && outside(f.span.start))
      .map((f) => ({ code: f.value.slice(0, 2), span: f.span, how: 'IBAN' })),
    ...findPhoneNumbersInText(text)
      .filter((p) => p.number.country && outside(p.startsAt))
      .map((p) => ({ code: p.number.country!, span: span(text, p.startsAt, p.endsAt), how: 'phone' })),
  ];
}

const NAME = [
  String.raw`([\p{Lu}\p{N}][\p{L}\p{N}&'’.\- ]{0,60}?)(?=\s*(?:[\n,;(<]|\.(?:\s|$)|$| (?:at|on|by|for|with|under|and`,
  String.raw`|iban|account)\b))`,
].join('');
const VENDOR_LABEL = new RegExp(
  [
    String.raw`\b(?:(?:vendor|supplier|seller|sold by|issued by|from|contractor|merchant|provider|payee|beneficiary`,
    String.raw`|account (?:holder|name)|insured)\s*:|pay(?:able)? to|remit(?:tance)?(?: payments?)? to|in favou?r of`,
    String.raw`|made out to|(?:checks?|payments?) payable to)\s*${NAME}`,
  ].join(''),
  'giu',
);

const LEGAL = new RegExp(
  [
    String.raw`\s+(?:ltd|limited|llc|inc|incorporated|corp|corporation|co|company|gmbh|ag|kg|sa|sas|sarl|srl|spa|bv`,
    String.raw`|nv|plc|pty|oy|ab|as|aps|llp|lp|se)$`,
  ].join(''),
  '',
);
/** "Acme Ltd.", "ACME, Inc." and "acme" are one name; "Acme Trading" is another. */
export function normalizeName(name: string): string {
  let n = name
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[.,'’"]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  while (LEGAL.test(n)) n = n.replace(LEGAL, '').trim();
  return n.replace(/^the\s+/, '');
}

/** A first line that is a company's name with its legal form: the letterhead of the vendor that issued it. */
const CAPITALIZED = String.raw`[\p{Lu}\p{N}][\p{L}\p{N}'’.&-]*`;
const LEGAL_FORM = [
  String.raw`(?:Ltd|Limited|LLC|Inc|Incorporated|Corp|Corporation|Company|GmbH|AG|KG|SA|SAS|SARL|Srl|SpA|BV|NV|plc|PLC`,
  String.raw`|Pty|Oy|AB|ApS|LLP|LP|SE)`,
].join('');
const LETTERHEAD = new RegExp(
  [
    String.raw`^[ \t]*(${CAPITALIZED}(?:,?[ \t]+(?:${CAPITALIZED}|&|and|of|und|et|de|la))*?,?[ \t]${LEGAL_FORM}\.?)`,
    String.raw`[ \t]*(?:\n|$)`,
  ].join(''),
  'u',
);

/** Parties a document names as its vendor: labelled ("Supplier: Acme GmbH", "payable to Globex") or its letterhead. */
export function vendorParties(text: string): Array<{ name: string; span: Span }> {
  const head = LETTERHEAD.exec(text);
  const letterhead = head
    ? [
        {
          name: head[1]!,
          span: span(
            text,
            head.index + head[0].indexOf(head[1]!),
            head.index + head[0].indexOf(head[1]!) + head[1]!.length,
          ),
        },
      ]
    : [];
  return [
    ...letterhead,
    ...[...text.matchAll(VENDOR_LABEL)].map((m) => {
      const start = m.index + m[0].lastIndexOf(m[1]!);
      return { name: m[1]!.trim(), span: span(text, start, start + m[1]!.trim().length) };
    }),
  ];
}

/**
 * The lines that say what a document is: any "Title:"/"Subject:"/"Form:" line, and its first non-empty line when that
 * reads as a title (short, not a sentence: "Please send your W-9." names a W-9 but is none).
 */
export function headings(text: string): Span[] {
  const out: Span[] = [];
  let at = 0;
  let first = true;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    const title = first && trimmed.length <= 100 && !/[.!?]$/.test(trimmed);
    if (trimmed && (title || /^(?:title|subject|re|document|form|type)\s*:/i.test(trimmed)))
      out.push(span(text, at + line.indexOf(trimmed), at + line.indexOf(trimmed) + trimmed.length));
    if (trimmed) first = false;
    at += line.length + 1;
  }
  return out;
}

const SIGNED = new RegExp(
  [
    String.raw`\b(?:signed(?: by| on)?[ \t]*:?[ \t]*(?=[\p{L}\p{N}/])|signature[ \t]*:[ \t]*(?=[\p{L}/])`,
    String.raw`|\/s\/[ \t]*\S|e-?signed|digitally signed|electronically signed|docusigned)[^\n]*`,
  ].join(''),
  'imu',
);
const UNSIGNED = new RegExp(
  [
    String.raw`\b(?:unsigned|not (?:yet )?signed|draft|signature pending|awaiting signature)\b|\b(?:signature`,
    String.raw`|signed(?: by)?)[ \t]*(?::[ \t]*(?:_{3,}|\.{3,}|$)|_{3,}|\.{3,})`,
  ].join(''),
  'im',
);

/** Whether a document shows a signature (a "Signed by:" line with a name), a blank or draft one, or neither. */
export function signatureOf(text: string): { state: 'signed' | 'unsigned' | 'unknown'; span?: Span } {
  const blank = UNSIGNED.exec(text);
  if (blank) return { state: 'unsigned', span: span(text, blank.index, blank.index + blank[0].trimEnd().length) };
  const signed = SIGNED.exec(text);
  if (signed) return { state: 'signed', span: span(text, signed.index, signed.index + signed[0].trimEnd().length) };
  return { state: 'unknown' };
}
