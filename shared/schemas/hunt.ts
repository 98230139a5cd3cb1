import { Type, type Static } from '@sinclair/typebox';
import { HttpUrl, Ok, Page, StringEnum } from './common.js';
import { Budget } from './orchestrator.js';

/**
 * Where hunt reads candidates: the account's imported catalog, the web pages a request names in `urls`, and the
 * account's `hunt.search` connectors.
 */
export const HUNT_SOURCES = ['catalog', 'web', 'connector'] as const;
export type HuntSource = (typeof HUNT_SOURCES)[number];

/** schema.org ItemAvailability, in camel case; `unknown` when the page does not say. */
export const AVAILABILITIES = [
  'inStock',
  'limitedAvailability',
  'onlineOnly',
  'inStoreOnly',
  'preOrder',
  'preSale',
  'backOrder',
  'madeToOrder',
  'outOfStock',
  'soldOut',
  'discontinued',
  'reserved',
  'unknown',
] as const;
export type Availability = (typeof AVAILABILITIES)[number];
export const Availability = StringEnum(AVAILABILITIES, {
  description: 'schema.org ItemAvailability of the offer (unknown: the page does not say)',
});

/** The markup a web offer was read from. */
export const OFFER_MARKUPS = ['jsonLd', 'microdata', 'openGraph'] as const;
export type OfferMarkup = (typeof OFFER_MARKUPS)[number];

export const Listing = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 300 }),
    price: Type.Number({ minimum: 0, maximum: 1e9 }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', default: 'USD' }),
    fees: Type.Number({
      minimum: 0,
      maximum: 1e9,
      default: 0,
      description: 'Shipping, service and other fees on top of price',
    }),
    vendor: Type.Optional(Type.String({ maxLength: 200 })),
    url: Type.Optional(HttpUrl()),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 30 })),
    location: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { $id: 'CatalogListing' },
);
export type Listing = Static<typeof Listing>;

export const CatalogImport = Type.Object(
  {
    listings: Type.Optional(Type.Array(Listing, { minItems: 1, maxItems: 5000 })),
    csv: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 5_000_000,
        description: 'Header row with the listing field names; tags separated by ;',
      }),
    ),
  },
  { $id: 'CatalogImportRequest' },
);
export type CatalogImport = Static<typeof CatalogImport>;

export const CatalogImported = Ok(
  { imported: Type.Integer(), listingIds: Type.Array(Type.String()) },
  'CatalogImported',
);
/** A stored listing as GET /v1/hunt/catalog shows it (money in major units). */
export const CatalogEntry = Type.Object(
  {
    listingId: Type.String(),
    title: Type.String(),
    price: Type.Number(),
    fees: Type.Number(),
    currency: Type.String(),
    vendor: Type.Union([Type.String(), Type.Null()]),
    url: Type.Union([Type.String(), Type.Null()]),
    location: Type.Union([Type.String(), Type.Null()]),
    tags: Type.Array(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'CatalogEntry' },
);
export const CatalogPage = Page('listings', CatalogEntry, 'CatalogPage');

/** An amount as a decimal string in its currency's minor digits ("389.00"; "15800" in JPY): no float drift. */
export const MoneyAmount = Type.Object(
  {
    amount: Type.String({ pattern: '^-?\\d+(\\.\\d+)?$', description: 'Decimal string in major units' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  },
  { $id: 'HuntMoney' },
);
/** An amount converted into the comparison currency: the rate (units per 1 of the original) and its day. */
export const ComparedAmount = Type.Object(
  {
    amount: Type.String({ pattern: '^-?\\d+(\\.\\d+)?$' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    rate: Type.Union([Type.String(), Type.Null()], {
      description: 'Units of this currency per 1 unit of the offer currency; null when no conversion was needed',
    }),
    rateDate: Type.Union([Type.String(), Type.Null()], { description: 'Day of the ECB reference rates used' }),
    rateSource: Type.Union([Type.String(), Type.Null()], { description: 'Where those rates were published' }),
  },
  { $id: 'HuntComparedMoney' },
);

export const Candidate = Type.Object(
  {
    candidateId: Type.String(),
    title: Type.String(),
    net: Type.Union([MoneyAmount, Type.Null()], {
      description: "price + shipping + mandatory fees, in the offer's own currency; null when a fee is not priced",
    }),
    netInBudgetCurrency: Type.Union([ComparedAmount, Type.Null()], {
      description:
        'The net in the budget currency (without a budget: the currency the search compares in), with the rate ' +
        'and the day of the ECB reference rates it was converted at; null when no rate names its currency',
    }),
    price: Type.Number(),
    currency: Type.String(),
    source: StringEnum(HUNT_SOURCES),
    vendor: Type.Union([Type.String(), Type.Null()], {
      description: "Seller (web: the offer's seller, else the site name, else the host)",
    }),
    url: Type.Union([Type.String(), Type.Null()], {
      description: 'Where it was read (web: the page, after redirects)',
    }),
    eligible: Type.Boolean(),
    reasons: Type.Array(Type.String(), {
      description: 'Why it is or is not eligible, and what its net price is made of',
    }),
    rank: Type.Number({ description: 'Share of the search terms its title contains (0..1)' }),
    fees: Type.Number({
      description: 'Mandatory fees added to the price, in its currency (web: shipping and priced fees)',
    }),
    hiddenFeeClear: Type.Boolean({ description: 'False when its source mentions a fee it does not price' }),
    availability: Type.Optional(Availability),
    snapshotHash: Type.Optional(Type.String({ description: 'SHA-256 (hex) of the page body the offer was read from' })),
    markup: Type.Optional(StringEnum(OFFER_MARKUPS, { description: 'The page markup the offer was read from' })),
    foundBy: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Web offers: who found the page, `urls` (the request named it) or `<kind>:<connectorId>` of each search ' +
          'source that returned it',
      }),
    ),
  },
  { $id: 'HuntCandidate' },
);
export type Candidate = Static<typeof Candidate>;

/** One option of a NEEDS_INPUT choice (the waitpoint's `choices`); the client answers with its itemId. */
export const Choice = Type.Object(
  {
    itemId: Type.String(),
    title: Type.String(),
    price: Type.Union([Type.Number(), Type.Null()], { description: 'Null for a lead (a business to contact)' }),
    currency: Type.Union([Type.String(), Type.Null()]),
    net: Type.Union([MoneyAmount, Type.Null()]),
    netInBudgetCurrency: Type.Union([ComparedAmount, Type.Null()]),
    vendor: Type.Union([Type.String(), Type.Null()]),
    url: Type.Union([Type.String(), Type.Null()]),
    kind: Type.Optional(StringEnum(['offer', 'lead'], { description: 'An offer to buy, or a lead to contact' })),
    phone: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "A lead's phone" })),
    email: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "A lead's email" })),
  },
  { $id: 'HuntChoice' },
);
export type Choice = Static<typeof Choice>;

export const HuntSearchRequest = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 1000 }),
    sources: Type.Optional(
      Type.Array(Type.String({ maxLength: 100 }), {
        maxItems: 20,
        description:
          'catalog, web, connector; default: the catalog and the web (the pages in urls and what the ' +
          "account's search sources find)",
      }),
    ),
    urls: Type.Optional(Type.Array(HttpUrl('A page to read offers from (the web source)'), { maxItems: 20 })),
    budget: Type.Optional(Budget),
    location: Type.Optional(Type.String({ maxLength: 300 })),
    taskId: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { $id: 'HuntSearchRequest', additionalProperties: true },
);
export type HuntSearchRequest = Static<typeof HuntSearchRequest>;

export const HuntSearchResult = Ok(
  {
    candidates: Type.Array(Candidate),
    ranking: Type.String({ description: 'How the candidates are ordered' }),
    sourceTelemetry: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Per source: status, latency, what was read, errors; `search` lists what each search source found (or ' +
        'what to configure when there is none)',
    }),
    comparison: Type.Object(
      {
        currency: Type.String({ description: "The budget's currency, else USD: what netInBudgetCurrency is in" }),
        budget: Type.Union([MoneyAmount, Type.Null()]),
        rates: Type.Object(
          { date: Type.String(), source: Type.String() },
          { description: 'The ECB reference rates conversions used: their day and where they were published' },
        ),
      },
      { description: 'What prices were compared in' },
    ),
  },
  'HuntSearchResult',
);

/** A catalog search hit as stored (money in minor units) with its text rank. */
export interface ListingRow {
  id: string;
  title: string;
  price_minor: number;
  fees_minor: number;
  currency: string;
  vendor: string | null;
  url: string | null;
  rank: number;
}
