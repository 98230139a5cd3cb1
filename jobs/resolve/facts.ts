import * as chrono from 'chrono-node/en'; // English only, as everywhere here: the package root loads every locale
import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import type { FACT_KINDS } from './schemas.js';
import { registrableDomain } from './lookalike.js';

/**
 * The checkable facts of a text, each with the exact span it was read from:
 * amounts with their currency, dates (chrono-node), bank details (IBANs
 * validated by ibantools, labelled account numbers), labelled payees and
 * names, registrable domains (tldts) and payment methods. Pure.
 */

export type FactKind = (typeof FACT_KINDS)[number];

export interface Span {
  text: string;
  /** UTF-16 offsets into the source text, `end` exclusive. */
  start: number;
  end: number;
}

export interface Fact {
  kind: Exclude<FactKind, 'currency'>;
  /** Normalized value compared across sources (`300.00 USD`, `2025-03-14`, `DE89370400440532013000`). */
  value: string;
  span: Span;
  /** Domains only: the full host name it was read from. */
  host?: string;
  /** Amounts only: the number and the ISO 4217 code. */
  amount?: { value: number; currency: string | null };
}

const CURRENCY_CODES = new Set(Intl.supportedValuesOf('currency'));
const SYMBOLS: Record<string, string> = {
  $: 'USD',
  US$: 'USD',
  '€': 'EUR',
  '£': 'GBP',
  '¥': 'JPY',
  '₹': 'INR',
  C$: 'CAD',
  A$: 'AUD',
  CHF: 'CHF',
};
/** A written number ("1,299.00", "1.299,00", "300"); a regex source. */
export const NUMBER = String.raw`\d{1,3}(?:[.,\s]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?`;
/** A currency symbol; a regex source. */
export const SYMBOL = String.raw`US\$|C\$|A\$|\$|€|£|¥|₹`;
// ISO codes count in capitals only, so "owe 1,200" is not read as a currency "OWE".
const AMOUNT = new RegExp(
  [
    String.raw`(?:(${SYMBOL})\s?(${NUMBER})|\b([A-Z]{3})\s?(${NUMBER})\b`,
    String.raw`|\b(${NUMBER})\s?(?:([A-Z]{3})\b|(${SYMBOL})|([Dd]ollars?|[Ee]uros?|[Pp]ounds?)\b))`,
  ].join(''),
  'g',
);
const WORD_CURRENCY: Record<string, string> = {
  dollar: 'USD',
  dollars: 'USD',
  euro: 'EUR',
  euros: 'EUR',
  pound: 'GBP',
  pounds: 'GBP',
};

/** The ISO 4217 code a symbol, code or word names ("€", "eur", "euros" → "EUR"), or null. */
export function currencyOf(token: string): string | null {
  const t = token.trim();
  if (/^[a-z]{3}$/i.test(t) && CURRENCY_CODES.has(t.toUpperCase())) return t.toUpperCase();
  return SYMBOLS[t.toUpperCase()] ?? WORD_CURRENCY[t.toLowerCase()] ?? null;
}

/** "1,299.00", "1.299,00", "19,99", "300" → 1299, 1299, 19.99, 300. */
export function parseAmount(raw: string): number {
  const s = raw.replace(/\s/g, '');
  const decimal = /[.,]\d{1,2}$/.exec(s);
  const whole = (decimal ? s.slice(0, decimal.index) : s).replace(/[.,]/g, '');
  return Number(`${whole}${decimal ? `.${decimal[0].slice(1)}` : ''}`);
}

function amounts(text: string): Fact[] {
  const out: Fact[] = [];
  for (const m of text.matchAll(AMOUNT)) {
    const code = (m[3] ?? m[6])?.toUpperCase();
    if (code && !CURRENCY_CODES.has(code)) continue; // "ABC 12" is not money
    const currency =
      code ?? SYMBOLS[(m[1] ?? m[7])?.toUpperCase() ?? ''] ?? WORD_CURRENCY[(m[8] ?? '').toLowerCase()] ?? null;
    if (!currency) continue;
    const value = parseAmount(m[2] ?? m[4] ?? m[5]!);
    if (!Number.isFinite(value) || value <= 0) continue;
    out.push({
      kind: 'amount',
      value: `${value.toFixed(2)} ${currency}`,
      amount: { value, currency },
      span: { text: m[0], start: m.index, end: m.index + m[0].length },
    });
  }
  return out;
}

/** Calendar dates stated with day and month (relative ones such as "today" are not facts to compare). */
function dates(text: string): Fact[] {
  return chrono
    .parse(text, new Date(Date.UTC(2000, 0, 1)), { forwardDate: false })
    .filter((r) => r.start.isCertain('day') && r.start.isCertain('month'))
    .map((r) => {
      const c = r.start;
      const mmdd = `${String(c.get('month')).padStart(2, '0')}-${String(c.get('day')).padStart(2, '0')}`;
      return {
        kind: 'date' as const,
        value: c.isCertain('year') ? `${c.get('year')}-${mmdd}` : mmdd,
        span: { text: r.text, start: r.index, end: r.index + r.text.length },
      };
    });
}

const IBAN_SHAPE = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g;
const ACCOUNT_NO = /\b(?:account (?:number|no\.?|#)|acct\.? ?(?:no\.?|#)?)\s*[:#]?\s*(\d[\d -]{4,22}\d)/gi;

function bankDetails(text: string): Fact[] {
  const out: Fact[] = [];
  for (const m of text.matchAll(IBAN_SHAPE)) {
    const iban = electronicFormatIBAN(m[0]);
    if (iban && isValidIBAN(iban))
      out.push({ kind: 'bankDetails', value: iban, span: { text: m[0], start: m.index, end: m.index + m[0].length } });
  }
  for (const m of text.matchAll(ACCOUNT_NO)) {
    const start = m.index + m[0].indexOf(m[1]!);
    out.push({
      kind: 'bankDetails',
      value: `account ${m[1]!.replace(/[ -]/g, '')}`,
      span: { text: m[1]!, start, end: start + m[1]!.length },
    });
  }
  return out;
}

/** A labelled party: "Payee: Acme GmbH", "payable to Acme Ltd.", "Bill to: Jane Doe" (the label decides the kind). */
const PARTY = new RegExp(
  [
    String.raw`\b(payee|beneficiary|pay(?:able)? to|account (?:holder|name)|in favou?r of`,
    String.raw`|bill(?:ed)? to|invoice(?:d)? to|customer(?: name)?|sold to`,
    String.raw`|name)\s*[:\-]?\s+([A-Z][\p{L}\p{N}&'’.\- ]{1,60}?)(?=\s*(?:[\n,;(]|\.(?:\s|$)`,
    String.raw`|$| (?:at|on|by|for|with|under|and|iban|account)\b))`,
  ].join(''),
  'giu',
);

function parties(text: string): Fact[] {
  const out: Fact[] = [];
  for (const m of text.matchAll(PARTY)) {
    if (!/^[\p{Lu}\p{N}]/u.test(m[2]!)) continue; // a name starts with a capital ("payable to the account" is no payee)
    const label = m[1]!.toLowerCase();
    const kind = /bill|invoice|customer|sold|^name/.test(label) ? 'name' : 'payee';
    const start = m.index + m[0].lastIndexOf(m[2]!);
    out.push({
      kind,
      value: m[2]!
        .toLowerCase()
        .replace(/[.,]+$/, '')
        .replace(/\s+/g, ' ')
        .trim(),
      span: { text: m[2]!, start, end: start + m[2]!.length },
    });
  }
  return out;
}

const HOST_LIKE =
  /(?:https?:\/\/)?(?:[\p{L}\p{N}-]+\.)+[\p{L}]{2,}(?:\/[^\s<>"')]*)?|[\w.+-]+@(?:[\p{L}\p{N}-]+\.)+[\p{L}]{2,}/gu;

/** Registrable domains of URLs, e-mail addresses and bare host names the Public Suffix List knows. */
export function domains(text: string): Fact[] {
  const out: Fact[] = [];
  for (const m of text.matchAll(HOST_LIKE)) {
    const token = m[0].replace(/[.,;:]+$/, '');
    const domain = registrableDomain(token);
    const host =
      token.includes('@') && !token.includes('/')
        ? token.slice(token.lastIndexOf('@') + 1)
        : token.replace(/^https?:\/\//i, '').split('/')[0]!;
    if (domain)
      out.push({
        kind: 'domain',
        value: domain,
        host,
        span: { text: token, start: m.index, end: m.index + token.length },
      });
  }
  return out;
}

const METHODS: Array<[string, RegExp]> = [
  ['giftCard', /\b(?:gift|itunes|google play|steam|prepaid) ?cards?\b/i],
  ['moneyTransferService', /\b(?:western union|moneygram|wire transfer|wire the)\b/i],
  ['bankTransfer', /\b(?:bank transfer|sepa|direct debit|ach transfer|iban)\b/i],
  ['crypto', /\b(?:bitcoin|btc|crypto(?:currency)?|usdt|tether|ethereum)\b/i],
  ['card', /\b(?:credit card|debit card|visa|mastercard|amex)\b/i],
  ['paymentApp', /\b(?:zelle|venmo|cash ?app|paypal)\b/i],
  ['check', /\b(?:cheque|check (?:payment|enclosed)|by check)\b/i],
  ['cash', /\b(?:in cash|cash payment|pay cash)\b/i],
];

function paymentMethods(text: string): Fact[] {
  const out: Fact[] = [];
  for (const [method, re] of METHODS) {
    const m = re.exec(text);
    if (m)
      out.push({
        kind: 'paymentMethod',
        value: method,
        span: { text: m[0], start: m.index, end: m.index + m[0].length },
      });
  }
  return out;
}

/** Every fact of a text, in the order of the kinds. */
export function factsOf(text: string): Fact[] {
  return [
    ...amounts(text),
    ...dates(text),
    ...parties(text),
    ...bankDetails(text),
    ...domains(text),
    ...paymentMethods(text),
  ];
}
