import { Type, type Static } from '@sinclair/typebox';
import { Ok } from './common.js';

export const Listing = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 300 }),
    price: Type.Number({ minimum: 0, maximum: 1e9 }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', default: 'USD' }),
    fees: Type.Number({ minimum: 0, maximum: 1e9, default: 0, description: 'Shipping, service and other fees on top of price' }),
    vendor: Type.Optional(Type.String({ maxLength: 200 })),
    // format uri alone admits javascript:, data: and file: links, which a client would render or follow.
    url: Type.Optional(Type.String({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 2000, description: 'An http(s) URL' })),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 30 })),
    location: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { $id: 'CatalogListing' },
);
export type Listing = Static<typeof Listing>;

export const CatalogImport = Type.Object(
  {
    listings: Type.Optional(Type.Array(Type.Unknown(), { minItems: 1, maxItems: 5000 })),
    csv: Type.Optional(Type.String({ minLength: 1, maxLength: 5_000_000, description: 'Header row with the listing field names; tags separated by ;' })),
  },
  { $id: 'CatalogImportRequest' },
);
export type CatalogImport = Static<typeof CatalogImport>;

export const Candidate = Type.Object(
  {
    candidateId: Type.String(),
    title: Type.String(),
    netUsd: Type.Union([Type.Number(), Type.Null()]),
    price: Type.Number(),
    currency: Type.String(),
    source: Type.String(),
    vendor: Type.Union([Type.String(), Type.Null()]),
    url: Type.Union([Type.String(), Type.Null()]),
    eligible: Type.Boolean(),
    reasons: Type.Array(Type.String()),
    rank: Type.Number(),
  },
  { $id: 'HuntCandidate' },
);
export type Candidate = Static<typeof Candidate>;

/** One option of a NEEDS_INPUT choice (the waitpoint's `choices`); the client answers with its itemId. */
export const Choice = Type.Object(
  {
    itemId: Type.String(),
    title: Type.String(),
    price: Type.Number(),
    currency: Type.String(),
    netUsd: Type.Union([Type.Number(), Type.Null()]),
    vendor: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'HuntChoice' },
);
export type Choice = Static<typeof Choice>;

export const HuntSearchResult = Ok(
  { candidates: Type.Array(Candidate), sourceTelemetry: Type.Record(Type.String(), Type.Unknown()) },
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
