import type { Availability, Candidate, Choice, ListingRow } from '../../shared/schemas/hunt.js';

export type { Choice };

export type Intent = 'buy' | 'contact' | 'choose' | 'browse';

const BUDGET = new RegExp(
  [
    String.raw`\b(?:under|below|less than|max(?:imum)?|up to|at most|budget(?: of)?`,
    String.raw`|<=?)\s*(?:usd\s*)?\$?\s*(\d+(?:[.,]\d{1,2})?)\s*(?:\$|usd|dollars?|bucks)?`,
  ].join(''),
  'i',
);

/** "under $400", "below 300 dollars", "budget of 50" → 400 / 300 / 50; null when the text names no budget. */
export function parseBudget(text: string): number | null {
  const m = BUDGET.exec(text);
  return m ? Number(m[1]!.replace(',', '.')) : null;
}

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
    .replace(BUDGET, ' ')
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

const usd = (n: number) => `$${n.toFixed(2)}`;

/**
 * Eligibility: orderable now (when the source says), priced in USD (no
 * conversion rates here), total clear (no fee mentioned without a price),
 * and within the budget. Every reason is kept, the passing ones too, so the
 * answer says what the net price is made of.
 */
export function judge(
  p: Pricing,
  budgetUsd: number | null,
): Pick<Candidate, 'netUsd' | 'eligible' | 'reasons' | 'hiddenFeeClear' | 'fees'> {
  const reasons: string[] = [];
  const hiddenFeeClear = p.unpricedFees.length === 0;
  const clear = hiddenFeeClear && p.unclear.length === 0;
  const inUsd = p.currency === 'USD';
  const netUsd = inUsd && clear ? Math.round((p.price + p.fees) * 100) / 100 : null;
  if (p.availability !== undefined && !ORDERABLE.has(p.availability)) {
    reasons.push(
      p.availability === 'unknown' ? 'the page does not say it is in stock' : `not orderable now (${p.availability})`,
    );
  }
  if (!inUsd) reasons.push(`priced in ${p.currency}; no conversion rate is available, so it cannot be compared in USD`);
  for (const quote of p.unpricedFees) reasons.push(`the page mentions a fee it does not price: "${quote}"`);
  reasons.push(...p.unclear);
  if (netUsd !== null && budgetUsd !== null && netUsd > budgetUsd)
    reasons.push(`net ${usd(netUsd)} is over the ${usd(budgetUsd)} budget`);
  if (p.fees > 0) reasons.push(`net includes ${p.feeParts.join(' and ') || `${p.fees.toFixed(2)} ${p.currency} fees`}`);
  reasons.push(...p.notes);
  const eligible =
    netUsd !== null &&
    (budgetUsd === null || netUsd <= budgetUsd) &&
    (p.availability === undefined || ORDERABLE.has(p.availability));
  return { netUsd, eligible, reasons, hiddenFeeClear, fees: Math.round(p.fees * 100) / 100 };
}

/** A catalog listing as a candidate: its fees are stated at import, so its total is always clear. */
export function catalogCandidate(row: ListingRow, terms: string, budgetUsd: number | null): Candidate {
  const fees = row.fees_minor / 100;
  const pricing: Pricing = {
    price: row.price_minor / 100,
    currency: row.currency,
    fees,
    feeParts: fees > 0 ? [`${usd(fees)} fees`] : [],
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
    ...judge(pricing, budgetUsd),
  };
}

/** How `rankCandidates` orders, in words, for the answer. */
export function rankingExplanation(cheapestFirst: boolean, terms: string): string {
  return cheapestFirst
    ? 'Eligible candidates first (in stock, priced in USD, total clear, within budget); then by net price ' +
        '(price + shipping + mandatory fees), lowest first, as the request asks for the cheapest.'
    : `Eligible candidates first (in stock, priced in USD, total clear, within budget); then by rank, the ` +
        `share of the search terms ("${terms}") the title contains; then by net price, lowest first.`;
}

/** Eligible first; then net price (cheapest asked for) or term share, then net price. */
export function rankCandidates(candidates: Candidate[], cheapestFirst: boolean): Candidate[] {
  const net = (c: Candidate) => c.netUsd ?? Infinity;
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
      netUsd: c.netUsd,
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
      : eligible.filter((c) => (cheapestFirst ? c.netUsd === best.netUsd : c.rank === best.rank));
  return competing.length > 1 ? { kind: 'choice' } : { kind: 'winner', winner: best };
}
