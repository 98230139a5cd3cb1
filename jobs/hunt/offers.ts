import type { CheerioAPI } from 'cheerio';
import type { Availability, OfferMarkup } from '../../shared/schemas/hunt.js';
import {
  deref,
  flattenNodes,
  jsonLdBlocks,
  microdataItems,
  openGraphProduct,
  typesOf,
  type LdNode,
} from './structured-data.js';

/**
 * Offers as a page states them (schema.org Product / Offer / AggregateOffer
 * in JSON-LD or microdata, else Open Graph product tags). Nothing is filled
 * in: a value the page does not give stays null, and the candidate built
 * from it says so. Pure.
 */
export interface PageOffer {
  title: string;
  price: number | null;
  currency: string | null;
  availability: Availability;
  /**
   * Shipping the offer states (`shippingDetails`, a delivery charge, Open Graph shipping cost); null when it states
   * none.
   */
  shipping: { amount: number; currency: string | null } | null;
  /** Every shipping option the offer lists says it does not ship. */
  doesNotShip: boolean;
  seller: string | null;
  markup: OfferMarkup;
  /**
   * What the page's data left open or how a figure was chosen (the lowest of an AggregateOffer, one of several shipping
   * rates).
   */
  notes: string[];
}

export interface PageOffers {
  offers: PageOffer[];
  /** JSON-LD blocks that were not JSON. */
  invalidJsonLd: number;
  /** Offers left out because the page gave no name or no price for them. */
  skipped: number;
}

const MAX_OFFERS_PER_PAGE = 50;
const PRODUCT_TYPES = new Set([
  'Product',
  'ProductGroup',
  'ProductModel',
  'IndividualProduct',
  'SomeProducts',
  'Vehicle',
  'Car',
]);
const AVAILABILITY: Record<string, Availability> = {
  instock: 'inStock',
  limitedavailability: 'limitedAvailability',
  onlineonly: 'onlineOnly',
  instoreonly: 'inStoreOnly',
  preorder: 'preOrder',
  presale: 'preSale',
  backorder: 'backOrder',
  madetoorder: 'madeToOrder',
  outofstock: 'outOfStock',
  soldout: 'soldOut',
  discontinued: 'discontinued',
  reserved: 'reserved',
};

const isNode = (v: unknown): v is LdNode => typeof v === 'object' && v !== null && !Array.isArray(v);
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

/** A node's text value: a string, or the first string of a list, or `@value` of a language-tagged value. */
function text(v: unknown): string | null {
  const first = Array.isArray(v) ? v[0] : v;
  if (typeof first === 'string') return first.replace(/\s+/g, ' ').trim() || null;
  if (typeof first === 'number') return String(first);
  if (isNode(first) && typeof first['@value'] === 'string') return text(first['@value']);
  return null;
}

/**
 * A money amount as written: 199.99, "199.99", "1,299.00" (thousands
 * commas), "1.299,00" or "19,99" (decimal comma); null when it is not one
 * unambiguous number.
 */
export function parseAmount(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? Math.round(v * 100) / 100 : null;
  const s = text(v)
    ?.replace(/[\s\u00a0]/g, '')
    .replace(/^[^\d]+|[^\d]+$/g, '');
  if (!s) return null;
  let normal: string | null = null;
  if (/^\d+(\.\d+)?$/.test(s)) normal = s;
  else if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(s)) normal = s.replace(/,/g, '');
  else if (/^\d{1,3}(\.\d{3})+(,\d+)?$/.test(s)) normal = s.replace(/\./g, '').replace(',', '.');
  else if (/^\d+,\d{1,2}$/.test(s)) normal = s.replace(',', '.');
  return normal === null ? null : Math.round(Number(normal) * 100) / 100;
}

function currencyOf(v: unknown): string | null {
  const c = text(v)?.toUpperCase();
  return c && /^[A-Z]{3}$/.test(c) ? c : null;
}

/**
 * "https://schema.org/InStock", "schema:InStock", "InStock", "in stock" → inStock; unknown when it is none of
 * schema.org's values.
 */
export function availabilityOf(v: unknown): Availability {
  const key = (text(isNode(v) ? v['@id'] : v) ?? '')
    .replace(/^.*[/#:]/, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');
  return AVAILABILITY[key] ?? 'unknown';
}

function nameOf(v: unknown, byId: Map<string, LdNode>): string | null {
  const node = deref(v, byId);
  return isNode(node) ? (text(node.name) ?? text(node.legalName)) : text(node);
}

/** The sale price of a priceSpecification list: a unit price that is not a list or strikethrough price. */
function specifiedPrice(
  offer: LdNode,
  byId: Map<string, LdNode>,
): { price: number | null; currency: string | null; delivery: number | null } {
  let price: number | null = null;
  let currency: string | null = null;
  let delivery: number | null = null;
  for (const raw of listOf(offer.priceSpecification)) {
    const spec = deref(raw, byId);
    if (!isNode(spec)) continue;
    const types = typesOf(spec);
    if (types.includes('DeliveryChargeSpecification')) delivery = parseAmount(spec.price);
    else if (price === null && !/list|strikethrough|msrp|srp/i.test(text(spec.priceType) ?? '')) {
      price = parseAmount(spec.price);
      currency = currencyOf(spec.priceCurrency);
    }
  }
  return { price, currency, delivery };
}

/**
 * Shipping from `shippingDetails`: the rate to the US when one is given, else the only one, else the highest
 * (destinations differ).
 */
function shippingOf(
  offer: LdNode,
  byId: Map<string, LdNode>,
  notes: string[],
): { shipping: PageOffer['shipping']; doesNotShip: boolean } {
  const details = listOf(offer.shippingDetails)
    .map((d) => deref(d, byId))
    .filter(isNode);
  if (details.length === 0) return { shipping: null, doesNotShip: false };
  if (details.every((d) => d.doesNotShip === true || d.doesNotShip === 'true'))
    return { shipping: null, doesNotShip: true };
  const rates = details
    .filter((d) => d.doesNotShip !== true && d.doesNotShip !== 'true')
    .flatMap((d) => {
      const rate = deref(d.shippingRate, byId);
      const amount = isNode(rate) ? parseAmount(rate.value ?? rate.price ?? rate.maxValue) : null;
      if (amount === null || !isNode(rate)) return [];
      const destination = listOf(deref(d.shippingDestination, byId)).map((x) =>
        isNode(x) ? text(x.addressCountry) : null,
      );
      return [{ amount, currency: currencyOf(rate.currency ?? rate.priceCurrency), us: destination.includes('US') }];
    });
  if (rates.length === 0) return { shipping: null, doesNotShip: false };
  const us = rates.find((r) => r.us);
  if (us || rates.length === 1)
    return { shipping: { amount: (us ?? rates[0]!).amount, currency: (us ?? rates[0]!).currency }, doesNotShip: false };
  const highest = rates.reduce((a, b) => (b.amount > a.amount ? b : a));
  notes.push(`shipping is the highest of ${rates.length} rates the page lists (destinations differ)`);
  return { shipping: { amount: highest.amount, currency: highest.currency }, doesNotShip: false };
}

/** One Offer or AggregateOffer (its nested offers expanded) as PageOffers. */
function readOffer(
  raw: unknown,
  title: string,
  byId: Map<string, LdNode>,
  markup: OfferMarkup,
  depth = 0,
): PageOffer[] {
  const offer = deref(raw, byId);
  if (!isNode(offer) || depth > 3) return [];
  const nested = listOf(offer.offers)
    .map((o) => deref(o, byId))
    .filter(isNode);
  if (typesOf(offer).includes('AggregateOffer') && nested.length > 0)
    return nested.flatMap((o) => readOffer(o, title, byId, markup, depth + 1));
  const notes: string[] = [];
  const spec = specifiedPrice(offer, byId);
  let price = parseAmount(offer.price) ?? spec.price;
  if (typesOf(offer).includes('AggregateOffer') && price === null) {
    price = parseAmount(offer.lowPrice);
    const high = parseAmount(offer.highPrice);
    notes.push(
      `the lowest of ${text(offer.offerCount) ?? 'several'} ` +
        `offers${high !== null ? ` (up to ${high})` : ''}; the page names no single seller's offer`,
    );
  }
  const currency = currencyOf(offer.priceCurrency) ?? spec.currency;
  const ship = shippingOf(offer, byId, notes);
  const shipping = ship.shipping ?? (spec.delivery !== null ? { amount: spec.delivery, currency } : null);
  return [
    {
      title,
      price,
      currency,
      availability: availabilityOf(offer.availability),
      shipping,
      doesNotShip: ship.doesNotShip,
      seller: nameOf(offer.seller, byId),
      markup,
      notes,
    },
  ];
}

/** Offers of the products among `nodes`, and of stand-alone Offers naming what they offer (`itemOffered`). */
function offersOfNodes(
  nodes: LdNode[],
  byId: Map<string, LdNode>,
  markup: OfferMarkup,
): { offers: PageOffer[]; skipped: number } {
  const offers: PageOffer[] = [];
  let skipped = 0;
  const claimed = new Set<unknown>();
  const take = (list: PageOffer[]) => {
    for (const o of list) o.price === null ? skipped++ : offers.push(o);
  };
  for (const node of nodes) {
    if (
      !(typesOf(node).some((t) => PRODUCT_TYPES.has(t)) || ('offers' in node && 'name' in node)) ||
      node.offers === undefined
    )
      continue;
    const name = text(node.name);
    const list = listOf(node.offers).map((o) => deref(o, byId));
    list.forEach((o) => claimed.add(o));
    if (!name) skipped += list.length;
    else take(list.flatMap((o) => readOffer(o, name, byId, markup)));
  }
  for (const node of nodes) {
    if (
      claimed.has(node) ||
      !typesOf(node).some((t) => t === 'Offer' || t === 'AggregateOffer') ||
      node.itemOffered === undefined
    )
      continue;
    const name = nameOf(node.itemOffered, byId);
    if (name) take(readOffer(node, name, byId, markup));
  }
  return { offers, skipped };
}

/**
 * Offers of a parsed page: JSON-LD first, else microdata, else Open Graph (a page usually repeats one product in
 * several).
 */
export function extractOffers($: CheerioAPI): PageOffers {
  const { roots, invalid } = jsonLdBlocks($);
  const sources: Array<[OfferMarkup, () => unknown[]]> = [
    ['jsonLd', () => roots],
    ['microdata', () => microdataItems($)],
    ['openGraph', () => [openGraphProduct($)].filter(Boolean)],
  ];
  let skipped = 0;
  for (const [markup, read] of sources) {
    const { nodes, byId } = flattenNodes(read());
    const found = offersOfNodes(nodes, byId, markup);
    skipped += found.skipped;
    if (found.offers.length > 0)
      return { offers: dedupe(found.offers).slice(0, MAX_OFFERS_PER_PAGE), invalidJsonLd: invalid, skipped };
  }
  return { offers: [], invalidJsonLd: invalid, skipped };
}

/**
 * One offer per (title, price, currency, seller): pages often describe a product twice (a graph node and its
 * reference).
 */
function dedupe(offers: PageOffer[]): PageOffer[] {
  const seen = new Map<string, PageOffer>();
  for (const o of offers) {
    const key = JSON.stringify([o.title, o.price, o.currency, o.seller]);
    if (!seen.has(key)) seen.set(key, o);
  }
  return [...seen.values()];
}
