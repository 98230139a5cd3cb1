import type { Candidate, Choice, ListingRow } from '../../shared/schemas/hunt.js';

export type { Choice };

export type Intent = 'buy' | 'contact' | 'choose' | 'browse';

const BUDGET = /\b(?:under|below|less than|max(?:imum)?|up to|at most|budget(?: of)?|<=?)\s*(?:usd\s*)?\$?\s*(\d+(?:[.,]\d{1,2})?)\s*(?:\$|usd|dollars?|bucks)?/i;

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

const FILLER = /\b(find|search|look(ing)? for|discover|get|me|us|a|an|the|some|please|cheap(est)?|best|deal|deals|on|for|buy|purchase|order|and|pay|it|then|call|them|contact|i|want|need|to|which|one|options?|compare|shortlist)\b/gi;

/** Search terms: the request without budget phrases and filler words. */
export function searchTerms(text: string): string {
  return text.replace(BUDGET, ' ').replace(/[^\p{L}\p{N}\s-]/gu, ' ').replace(FILLER, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * Prices listings in USD (price + fees), marks what the budget excludes, and
 * orders them: eligible first, then by text rank, or by price when the user
 * asked for the cheapest.
 */
export function rankCandidates(rows: ListingRow[], budgetUsd: number | null, cheapestFirst: boolean): Candidate[] {
  const candidates = rows.map((row): Candidate => {
    const reasons: string[] = [];
    const usd = row.currency === 'USD';
    const netUsd = usd ? (row.price_minor + row.fees_minor) / 100 : null;
    if (!usd) reasons.push(`priced in ${row.currency}; no conversion rate is available, so it cannot be compared in USD`);
    if (netUsd !== null && budgetUsd !== null && netUsd > budgetUsd) reasons.push(`net $${netUsd.toFixed(2)} is over the $${budgetUsd} budget`);
    if (row.fees_minor > 0) reasons.push(`includes $${(row.fees_minor / 100).toFixed(2)} fees`);
    const eligible = netUsd !== null && (budgetUsd === null || netUsd <= budgetUsd);
    return {
      candidateId: row.id,
      title: row.title,
      netUsd,
      price: row.price_minor / 100,
      currency: row.currency,
      source: 'catalog',
      vendor: row.vendor,
      url: row.url,
      eligible,
      reasons,
      rank: Math.round(row.rank * 10_000) / 10_000,
    };
  });
  return candidates.sort((a, b) => {
    if (a.eligible !== b.eligible) return a.eligible ? -1 : 1;
    if (cheapestFirst) return (a.netUsd ?? Infinity) - (b.netUsd ?? Infinity);
    return b.rank - a.rank || (a.netUsd ?? Infinity) - (b.netUsd ?? Infinity);
  });
}

export function toChoices(candidates: Candidate[], max = 5): Choice[] {
  return candidates.filter((c) => c.eligible).slice(0, max).map((c) => ({ itemId: c.candidateId, title: c.title, price: c.price, currency: c.currency, netUsd: c.netUsd, vendor: c.vendor }));
}

/** A choice is needed when the user means to act and more than one candidate qualifies. */
export function needsChoice(intent: Intent, candidates: Candidate[]): boolean {
  return intent !== 'browse' && candidates.filter((c) => c.eligible).length > 1;
}
