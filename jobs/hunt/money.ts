/**
 * Money in its own currency (issue 34): amounts as decimal strings in major units, computed in integer minor units
 * (bigint) so no figure drifts; a request's currency words and symbols understood; conversions through a table of
 * reference rates against the euro (the ECB publishes units of each currency per 1 EUR). Pure: the rates are passed in.
 */

export interface Money {
  /** Decimal string in major units, with the currency's minor digits ("389.00", "15800" for JPY). */
  amount: string;
  /** ISO 4217 code. */
  currency: string;
}

/** Reference rates: units of each currency per 1 EUR, as published (decimal strings), for one day. */
export interface RateTable {
  date: string;
  /** Where the rates were published (the ECB's daily file). */
  source: string;
  rates: Record<string, string>;
}

/** An amount in the comparison currency; `rate` (units of it per 1 unit of the original) and its day when converted. */
export interface Compared extends Money {
  rate: string | null;
  rateDate: string | null;
  rateSource: string | null;
}

const digitsCache = new Map<string, number>();

/** Minor-unit digits of a currency (JPY 0, EUR 2, BHD 3), from the runtime's ICU data; 2 when it does not know it. */
export function minorDigits(currency: string): number {
  let d = digitsCache.get(currency);
  if (d === undefined) {
    try {
      d = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      d = 2;
    }
    digitsCache.set(currency, d);
  }
  return d;
}

const TEN = (n: number) => 10n ** BigInt(n);

/** Half-up division of non-negative bigints. */
const divRound = (num: bigint, den: bigint) => (num * 2n + den) / (2n * den);

/** A plain decimal ("149.99", "0.83908", "15800") as an integer scaled by 10^scale, rounded half up; null otherwise. */
export function scaled(value: string | number, scale: number): bigint | null {
  const s = typeof value === 'number' ? (Number.isFinite(value) && value >= 0 ? value.toFixed(12) : '') : value.trim();
  const m = /^(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) return null;
  const frac = m[2] ?? '';
  const whole = BigInt(m[1]! + frac.slice(0, scale).padEnd(scale, '0'));
  return frac.length > scale && Number(frac[scale]) >= 5 ? whole + 1n : whole;
}

/** An amount in minor units of its currency; null when it is not a non-negative decimal. */
export const toMinor = (amount: string | number, currency: string) => scaled(amount, minorDigits(currency));

/** Minor units back to a decimal string with the currency's digits. */
export function fromMinor(minor: bigint, currency: string): string {
  const d = minorDigits(currency);
  const neg = minor < 0n;
  const s = (neg ? -minor : minor).toString().padStart(d + 1, '0');
  const out = d === 0 ? s : `${s.slice(0, -d)}.${s.slice(-d)}`;
  return neg ? `-${out}` : out;
}

export const money = (minor: bigint, currency: string): Money => ({ amount: fromMinor(minor, currency), currency });

const SYMBOL: Record<string, string> = { USD: '$', EUR: '€', GBP: '£', JPY: '¥' };

/** "$149.00", "€389.00", "£220.00", "1200.00 CHF": how the reasons write an amount. */
export const show = (m: Money) =>
  SYMBOL[m.currency] ? `${SYMBOL[m.currency]}${m.amount}` : `${m.amount} ${m.currency}`;

const RATE_SCALE = 8;

/** Units of `to` per 1 unit of `from` on the table's day, to six significant digits; null when either is missing. */
export function crossRate(from: string, to: string, table: RateTable): string | null {
  const f = from === 'EUR' ? TEN(RATE_SCALE) : scaled(table.rates[from] ?? '', RATE_SCALE);
  const t = to === 'EUR' ? TEN(RATE_SCALE) : scaled(table.rates[to] ?? '', RATE_SCALE);
  if (!f || !t) return null;
  // 12 exact decimals of the quotient; six significant digits are shown (a label, never used in arithmetic).
  const s = divRound(t * TEN(12), f)
    .toString()
    .padStart(13, '0');
  return String(Number(Number(`${s.slice(0, -12)}.${s.slice(-12)}`).toPrecision(6)));
}

/**
 * `minor` units of `from` in minor units of `to`, through the euro: amount / rate(from) × rate(to), rounded half up
 * once at the end. Null when the table has no rate for either.
 */
export function convertMinor(minor: bigint, from: string, to: string, table: RateTable): bigint | null {
  if (from === to) return minor;
  const f = from === 'EUR' ? TEN(RATE_SCALE) : scaled(table.rates[from] ?? '', RATE_SCALE);
  const t = to === 'EUR' ? TEN(RATE_SCALE) : scaled(table.rates[to] ?? '', RATE_SCALE);
  if (!f || !t) return null;
  return divRound(minor * t * TEN(minorDigits(to)), f * TEN(minorDigits(from)));
}

/** An amount in the comparison currency, naming the rate and its day when it was converted; null without a rate. */
export function compare(minor: bigint, from: string, to: string, table: RateTable): Compared | null {
  if (from === to) return { ...money(minor, to), rate: null, rateDate: null, rateSource: null };
  const out = convertMinor(minor, from, to, table);
  const rate = crossRate(from, to, table);
  if (out === null || rate === null) return null;
  return { ...money(out, to), rate, rateDate: table.date, rateSource: table.source };
}

/** Currency words and symbols a request may use, lower case → ISO code. "$" is taken as US dollars. */
const WORDS: Record<string, string> = {
  '€': 'EUR',
  eur: 'EUR',
  euro: 'EUR',
  euros: 'EUR',
  $: 'USD',
  us$: 'USD',
  usd: 'USD',
  dollar: 'USD',
  dollars: 'USD',
  bucks: 'USD',
  '£': 'GBP',
  gbp: 'GBP',
  pound: 'GBP',
  pounds: 'GBP',
  quid: 'GBP',
  '¥': 'JPY',
  jpy: 'JPY',
  yen: 'JPY',
  chf: 'CHF',
  franc: 'CHF',
  francs: 'CHF',
  'fr.': 'CHF',
};
const ISO = '(?:eur|usd|gbp|jpy|chf|sek|nok|dkk|pln|czk|huf|aud|cad|nzd|cny|hkd|sgd|inr|krw|mxn|brl|zar|try)';
const PREFIX = String.raw`(?:us\$|\$|€|£|¥|fr\.|${ISO})`;
const WORD = String.raw`euros?|dollars?|bucks|pounds?(?:\s+sterling)?|quid|yen|(?:swiss\s+)?francs?`;
const SUFFIX = String.raw`(?:us\$|\$|€|£|¥|${WORD}|${ISO})`;
const NUMBER = String.raw`(\d{1,3}(?:[,.\s]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)`;

/** A budget phrase: "under 400 euros", "below €400", "max £300", "budget of CHF 500", "less than 20000 yen". */
export const BUDGET_PHRASE = new RegExp(
  String.raw`\b(?:under|below|less than|max(?:imum)?|up to|at most|no more than|budget(?: of)?|<=?)\s*` +
    String.raw`(${PREFIX})?\s*${NUMBER}(?:\s*(${SUFFIX})(?![\p{L}]))?`,
  'iu',
);

/** "1,299.50" / "1.299,50" / "1 299" / "19,99" → "1299.50" / "1299.50" / "1299" / "19.99"; null when ambiguous. */
export function decimalOf(raw: string): string | null {
  const s = raw.replace(/[\s\u00a0]/g, '');
  if (/^\d+(\.\d{1,2})?$/.test(s)) return s;
  if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(s)) return s.replace(/,/g, '');
  if (/^\d{1,3}(\.\d{3})+(,\d+)?$/.test(s)) return s.replace(/\./g, '').replace(',', '.');
  if (/^\d+,\d{1,2}$/.test(s)) return s.replace(',', '.');
  if (/^\d+\.\d{3}$/.test(s)) return s.replace('.', '');
  return null;
}

/** The ISO code of a currency word or symbol ("euros", "€", "EUR", "£", "Swiss francs"); null when it names none. */
export function currencyOfWord(word: string | undefined): string | null {
  if (!word) return null;
  const w = word.trim().toLowerCase().replace(/\s+/g, ' ');
  if (WORDS[w]) return WORDS[w];
  if (/^swiss francs?$/.test(w)) return 'CHF';
  if (/^pounds? sterling$/.test(w)) return 'GBP';
  return /^[a-z]{3}$/.test(w) ? w.toUpperCase() : null;
}

/**
 * The budget a request states, in its currency: "under 400 euros" → 400.00 EUR, "below £300" → 300.00 GBP; a bare
 * number ("under 400") is in `fallback`. Null when the text names no budget.
 */
export function parseBudget(text: string, fallback = 'USD'): Money | null {
  const m = BUDGET_PHRASE.exec(text);
  if (!m) return null;
  const currency = currencyOfWord(m[1]) ?? currencyOfWord(m[3]) ?? fallback;
  const decimal = decimalOf(m[2]!);
  const minor = decimal === null ? null : toMinor(decimal, currency);
  return minor === null ? null : money(minor, currency);
}
