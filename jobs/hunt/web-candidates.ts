import { createHash } from 'node:crypto';
import type { Candidate } from '../../shared/schemas/hunt.js';
import { judge, termShare, type Comparison, type Pricing } from './logic.js';
import { show } from './money.js';
import type { PageOffer } from './offers.js';
import type { FeeMention } from './page-text.js';

/** A page that was read: where, what its body hashed to, who runs it, and the fees its text mentions. */
export interface ReadPage {
  url: string;
  snapshotHash: string;
  siteName: string | null;
  fees: FeeMention[];
}

const money = (n: number, currency: string) => show({ amount: n.toFixed(2), currency });

/**
 * What an offer costs in total, from what the page states: its shipping
 * (structured data first; the page's text when the data states none), the
 * fees its text prices, and the ones it mentions without a price. A figure
 * in another currency than the offer's is not converted: the total is then
 * not clear.
 */
export function pricingOf(offer: PageOffer & { price: number; currency: string }, page: ReadPage): Pricing {
  const p: Pricing = {
    price: offer.price,
    currency: offer.currency,
    fees: 0,
    feeParts: [],
    unpricedFees: [],
    availability: offer.availability,
    unclear: [],
    notes: [...offer.notes],
  };
  const add = (amount: number, currency: string | null, what: string) => {
    if (currency !== null && currency !== offer.currency)
      return void p.unclear.push(`${what} is priced in ${currency}, the offer in ${offer.currency}`);
    p.fees += amount;
    p.feeParts.push(`${money(amount, offer.currency)} ${what}`);
  };
  if (offer.doesNotShip) p.unclear.push('the page says it does not ship');
  if (offer.shipping) add(offer.shipping.amount, offer.shipping.currency ?? offer.currency, 'shipping');
  for (const fee of page.fees) {
    // The structured data's shipping rate is the offer's own; the text's shipping line only speaks when the data is
    // silent.
    if (fee.kind === 'shipping' && (offer.shipping || offer.doesNotShip)) continue;
    if (fee.amount)
      add(fee.amount.value, fee.amount.currency, `${fee.kind === 'shipping' ? 'shipping' : 'fee'} ("${fee.quote}")`);
    else p.unpricedFees.push(fee.quote);
  }
  if (!offer.shipping && !offer.doesNotShip && !page.fees.some((f) => f.kind === 'shipping'))
    p.notes.push('the page states no shipping cost; none is added');
  return p;
}

/** A stable id for one offer of one page: the same page and offer give the same id on every read. */
function candidateIdOf(url: string, offer: PageOffer): string {
  return `web_${createHash('sha256')
    .update(JSON.stringify([url, offer.title, offer.seller, offer.price, offer.currency]))
    .digest('hex')
    .slice(0, 24)}`;
}

/**
 * The page's offers as candidates, each bound to the page (url, snapshotHash)
 * and judged like any other. An offer without a currency is not a
 * candidate: a price in an unknown currency cannot be judged.
 */
export function webCandidates(
  page: ReadPage,
  offers: PageOffer[],
  terms: string,
  cmp: Comparison,
  foundBy: string[] = [],
): Candidate[] {
  const candidates: Candidate[] = [];
  for (const offer of offers) {
    if (offer.price === null || offer.currency === null) continue;
    const priced = { ...offer, price: offer.price, currency: offer.currency };
    candidates.push({
      candidateId: candidateIdOf(page.url, offer),
      title: offer.title,
      price: offer.price,
      currency: offer.currency,
      source: 'web',
      vendor: offer.seller ?? page.siteName ?? new URL(page.url).host,
      url: page.url,
      rank: termShare(offer.title, terms),
      availability: offer.availability,
      snapshotHash: page.snapshotHash,
      markup: offer.markup,
      foundBy,
      ...judge(pricingOf(priced, page), cmp),
    });
  }
  return candidates;
}
