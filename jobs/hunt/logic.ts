import type { Availability, Candidate, Choice, ListingRow } from '../../shared/schemas/hunt.js';
import { BUDGET_PHRASE, compare, money, parseBudget, show, toMinor, type Money, type RateTable } from './money.js';

export type { Choice };

export type Intent = 'buy' | 'contact' | 'choose' | 'browse';

/** The budget a request states, in its currency ("under 400 euros" → 400.00 EUR); null when it names none. */
export { parseBudget };

export function detectIntent(text: string): Intent {
  if (/\b(buy|purchase|order|pay|checkout|get it)\b/i.test(text)) return 'buy';
  if (/\b(call|contact|book|reserve|message|email)\b/i.test(text)) return 'contact';
  if (/\b(which|choose|pick|options?|shortlist|compare)\b/i.test(text)) return 'choose';
  return 'browse';
}

const FILLER = new RegExp(
  [
    String.raw`\b(find|search|look(ing)? for|discover|get|me|us|a|an|the|some|please`,
    String.raw`|cheap(est)?|best|deal|deals|on|for|buy|purchase|order|and|pay|it|then|call`,
    String.raw`|them|contact|i|want|need|to|which|one|options?|compare|shortlist|so|can`,
    String.raw`|choose|pick)\b`,
  ].join(''),
  'gi',
);

/** Search terms: the request without budget phrases and filler words. */
export function searchTerms(text: string): string {
  return text
    .replace(BUDGET_PHRASE, ' ')
    .replace(/[^\p{L}\p{N}\s-]/gu, ' ')
    .replace(FILLER, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1);

/** A word and its singular guesses ("boxes" → box, boxe; "shoes" → shoe, sho), so a plural matches either way. */
const forms = (w: string) => [w, w.replace(/s$/, ''), w.replace(/es$/, '')];

/** Share of the search terms the title contains (a plural counts: "drills" matches "drill"), rounded to 0.01. */
export function termShare(title: string, terms: string): number {
  const wanted = [...new Set(words(terms))];
  if (wanted.length === 0) return 0;
  const have = new Set(words(title).flatMap(forms));
  const hits = wanted.filter((t) => forms(t).some((f) => have.has(f))).length;
  return Math.round((hits / wanted.length) * 100) / 100;
}

/** Availabilities a buyer can order now. */
const ORDERABLE = new Set<Availability>(['inStock', 'limitedAvailability', 'onlineOnly', 'inStoreOnly']);

/** What eligibility is judged on, from whichever source the offer came. */
export interface Pricing {
  price: number;
  currency: string;
  /** Mandatory fees and shipping the source prices, in `currency`. */
  fees: number;
  /** How `fees` is made up, for the reasons ("$9.99 shipping"). */
  feeParts: string[];
  /** Quotes of fees the source mentions without an amount. */
  unpricedFees: string[];
  /** Web offers: what the page says; catalog listings have none (they are the account's own offers). */
  availability?: Availability;
  /** Why the total is not clear besides unpriced fees (shipping in another currency, does not ship). */
  unclear: string[];
  notes: string[];
}

/** What a candidate is compared in: the budget (its currency) or, without one, a currency and no limit. */
export interface Comparison {
  budget: Money | null;
  /** The budget's currency, else the one the search compares in. */
  currency: string;
  rates: RateTable;
}

/** A request's budget field (`{ amount, currency }`, or the older `{ maxUsd }`) as Money; null when absent. */
export function budgetFrom(b: unknown): Money | null {
  if (typeof b !== 'object' || b === null) return null;
  const o = b as { amount?: unknown; currency?: unknown; maxUsd?: unknown };
  const [amount, currency] =
    o.amount !== undefined && typeof o.currency === 'string' ? [o.amount, o.currency] : [o.maxUsd, 'USD'];
  if (typeof amount !== 'number' && typeof amount !== 'string') return null;
  const minor = toMinor(amount, currency);
  return minor === null ? null : money(minor, currency);
}

export const comparisonOf = (budget: Money | null, rates: RateTable, fallback = 'USD'): Comparison => ({
  budget,
  currency: budget?.currency ?? fallback,
  rates,
});

const ELIGIBLE = 'in stock, total clear, convertible to the budget currency, within budget';

/**
 * Eligibility: orderable now (when the source says), total clear (no fee mentioned without a price), its net
 * convertible into the comparison currency (the reference rates name both), and within the budget. Money is added
 * in minor units and converted once; every reason is kept, the passing ones too, so the answer says what the net
 * price is made of and, when converted, at which rate of which day.
 */
export function judge(
  p: Pricing,
  cmp: Comparison,
): Pick<Candidate, 'net' | 'netInBudgetCurrency' | 'eligible' | 'reasons' | 'hiddenFeeClear' | 'fees'> {
  const reasons: string[] = [];
  const hiddenFeeClear = p.unpricedFees.length === 0;
  const clear = hiddenFeeClear && p.unclear.length === 0;
  const price = toMinor(p.price, p.currency);
  const fees = toMinor(p.fees, p.currency) ?? 0n;
  const net = clear && price !== null ? money(price + fees, p.currency) : null;
  const compared = net && price !== null ? compare(price + fees, p.currency, cmp.currency, cmp.rates) : null;
  if (p.availability !== undefined && !ORDERABLE.has(p.availability)) {
    reasons.push(
      p.availability === 'unknown' ? 'the page does not say it is in stock' : `not orderable now (${p.availability})`,
    );
  }
  if (net && !compared)
    reasons.push(
      `priced in ${p.currency}; the reference rates of ${cmp.rates.date} have no ${p.currency} rate, so it cannot ` +
        `be compared in ${cmp.currency}`,
    );
  if (net && compared?.rate)
    reasons.push(
      `net ${show(net)} is ${show(compared)} at ${compared.rate} ${cmp.currency} per ${p.currency} ` +
        `(ECB reference rate of ${compared.rateDate})`,
    );
  for (const quote of p.unpricedFees) reasons.push(`the page mentions a fee it does not price: "${quote}"`);
  reasons.push(...p.unclear);
  const within =
    !cmp.budget || !compared || toMinor(compared.amount, cmp.currency)! <= toMinor(cmp.budget.amount, cmp.currency)!;
  if (!within) reasons.push(`net ${show(compared!)} is over the ${show(cmp.budget!)} budget`);
  if (fees > 0n) reasons.push(`net includes ${p.feeParts.join(' and ') || `${show(money(fees, p.currency))} fees`}`);
  reasons.push(...p.notes);
  const eligible = compared !== null && within && (p.availability === undefined || ORDERABLE.has(p.availability));
  return {
    net,
    netInBudgetCurrency: compared,
    eligible,
    reasons,
    hiddenFeeClear,
    fees: Number(money(fees, p.currency).amount),
  };
}

/** A catalog listing as a candidate: its fees are stated at import, so its total is always clear. */
export function catalogCandidate(row: ListingRow, terms: string, cmp: Comparison): Candidate {
  // The catalog stores hundredths whatever the currency (jobs/hunt/catalog-repository.ts).
  const price = (row.price_minor / 100).toFixed(2);
  const fees = (row.fees_minor / 100).toFixed(2);
  const pricing: Pricing = {
    price: Number(price),
    currency: row.currency,
    fees: Number(fees),
    feeParts: row.fees_minor > 0 ? [`${show({ amount: fees, currency: row.currency })} fees`] : [],
    unpricedFees: [],
    unclear: [],
    notes: [],
  };
  return {
    candidateId: row.id,
    title: row.title,
    price: pricing.price,
    currency: row.currency,
    source: 'catalog',
    vendor: row.vendor,
    url: row.url,
    rank: termShare(row.title, terms),
    ...judge(pricing, cmp),
  };
}

/** How `rankCandidates` orders, in words, for the answer. */
export function rankingExplanation(cheapestFirst: boolean, terms: string): string {
  return cheapestFirst
    ? `Eligible candidates first (${ELIGIBLE}); then by net price (price + shipping + mandatory fees, in the ` +
        'budget currency), lowest first, as the request asks for the cheapest.'
    : `Eligible candidates first (${ELIGIBLE}); then by rank, the share of the search terms ("${terms}") the ` +
        'title contains; then by net price in the budget currency, lowest first.';
}

/** Eligible first; then net price (cheapest asked for) or term share, then net price. */
export function rankCandidates(candidates: Candidate[], cheapestFirst: boolean): Candidate[] {
  const net = (c: Candidate) => (c.netInBudgetCurrency ? Number(c.netInBudgetCurrency.amount) : Infinity);
  return [...candidates].sort((a, b) => {
    if (a.eligible !== b.eligible) return a.eligible ? -1 : 1;
    if (cheapestFirst) return net(a) - net(b) || b.rank - a.rank;
    return b.rank - a.rank || net(a) - net(b);
  });
}

export function toChoices(candidates: Candidate[], max = 5): Choice[] {
  return candidates
    .filter((c) => c.eligible)
    .slice(0, max)
    .map((c) => ({
      itemId: c.candidateId,
      title: c.title,
      price: c.price,
      currency: c.currency,
      net: c.net,
      netInBudgetCurrency: c.netInBudgetCurrency,
      kind: 'offer' as const,
      vendor: c.vendor,
      url: c.url,
    }));
}

/**
 * What the ranked candidates come to: `choice` when more than one eligible
 * candidate competes, `winner` when exactly one stands out, `none` when none
 * is eligible. To act on one (buy, contact, choose) every eligible candidate
 * competes; a browse request's winner is the one alone at the best rank (and,
 * when it asked for the cheapest, at the lowest net price).
 */
export function outcomeOf(
  intent: Intent,
  ranked: Candidate[],
  cheapestFirst = false,
): { kind: 'choice' } | { kind: 'winner'; winner: Candidate } | { kind: 'none' } {
  const eligible = ranked.filter((c) => c.eligible);
  const best = eligible[0];
  if (!best) return { kind: 'none' };
  const competing =
    intent !== 'browse'
      ? eligible
      : eligible.filter((c) =>
          cheapestFirst ? c.netInBudgetCurrency?.amount === best.netInBudgetCurrency?.amount : c.rank === best.rank,
        );
  return competing.length > 1 ? { kind: 'choice' } : { kind: 'winner', winner: best };
}
