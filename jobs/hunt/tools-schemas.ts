import { Type } from '@sinclair/typebox';
import { HttpUrl, Ok, StringEnum } from '../../shared/schemas/common.js';

/** Schemas of hunt's reading tools: browserReader, imageReader and map (POST /v1/tools/…). */

export const READER_MODES = ['read', 'prepare'] as const;

export const BrowserReaderRequest = Type.Object(
  {
    url: HttpUrl('The page to read'),
    mode: StringEnum(READER_MODES, {
      default: 'read',
      description: '`read` fetches the page; `prepare` returns the plan and fetches nothing',
    }),
    render: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Read the page in headless chromium and answer from the DOM its scripts rendered (pages whose content ' +
          'only exists after scripts run); robots.txt is honoured for every request the page makes',
      }),
    ),
  },
  { $id: 'BrowserReaderRequest', additionalProperties: true },
);

const Link = Type.Object({ url: Type.String(), text: Type.String() });

export const BrowserReaderResult = Type.Union(
  [
    Ok({
      mode: Type.Literal('read'),
      url: Type.String({ description: 'The URL asked for' }),
      finalUrl: Type.String({ description: 'Where the body came from, after redirects' }),
      status: Type.Integer({ description: 'HTTP status the page answered with' }),
      contentType: Type.String(),
      title: Type.Union([Type.String(), Type.Null()]),
      text: Type.String({ description: 'Readable text, one line per block, at most textLimit characters' }),
      textTruncated: Type.Boolean(),
      links: Type.Array(Link),
      structuredData: Type.Array(Type.Unknown(), { description: 'The JSON-LD objects of the page, as parsed' }),
      contentHash: Type.String({ description: 'SHA-256 (hex) of the body as fetched' }),
      bytes: Type.Integer(),
      fetchedAt: Type.String({ format: 'date-time' }),
      rendered: Type.Optional(
        Type.Boolean({ description: 'True when read in chromium; contentHash is then of the rendered DOM' }),
      ),
    }),
    Ok({
      mode: Type.Literal('prepare'),
      url: Type.String(),
      plan: Type.Object({
        target: Type.Object({ url: Type.String(), scheme: Type.String(), host: Type.String() }),
        limits: Type.Object({
          timeoutMs: Type.Integer(),
          maxBytes: Type.Integer(),
          maxRedirects: Type.Integer(),
          textChars: Type.Integer(),
          links: Type.Integer(),
        }),
        privateAddressesAllowed: Type.Boolean(),
        wouldRead: Type.Array(Type.String()),
        fetched: Type.Literal(false),
      }),
    }),
  ],
  { $id: 'BrowserReaderResult' },
);

export const IMAGE_SIGNALS = [
  'editingSoftware',
  'editHistory',
  'metadataStripped',
  'timestampsDisagree',
  'gpsFix',
  'formatMismatch',
] as const;
export type ImageSignalKind = (typeof IMAGE_SIGNALS)[number];

export const ImageAttachment = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 300 }),
    mime: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The type the client declares; compared with what the bytes are',
    }),
    data: Type.Optional(
      Type.String({ minLength: 1, description: 'The image, base64 (standard or URL-safe alphabet); send data or url' }),
    ),
    url: Type.Optional(HttpUrl('Where to read the image; send data or url')),
  },
  { additionalProperties: true },
);

export const ImageReaderRequest = Type.Object(
  { attachments: Type.Array(ImageAttachment, { minItems: 1, maxItems: 10 }) },
  { $id: 'ImageReaderRequest', additionalProperties: true },
);

const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Number>>(t: T) =>
  Type.Union([t, Type.Null()]);

export const ImageReport = Type.Object({
  name: Type.String(),
  declaredMime: Type.String(),
  from: StringEnum(['data', 'url'] as const),
  format: Nullable(Type.String({ description: 'What the bytes are (jpg, png, gif, webp, heif, tiff, …)' })),
  width: Nullable(Type.Number()),
  height: Nullable(Type.Number()),
  bytes: Type.Integer(),
  sha256: Type.String(),
  metadata: StringEnum(['none', 'present'] as const, { description: 'none: no EXIF, XMP or IPTC block' }),
  exif: Type.Object({
    make: Nullable(Type.String()),
    model: Nullable(Type.String()),
    software: Nullable(Type.String()),
    dateTimeOriginal: Nullable(Type.String()),
    createDate: Nullable(Type.String()),
    modifyDate: Nullable(Type.String()),
    gps: Type.Union([
      Type.Object({ latitude: Type.Number(), longitude: Type.Number(), altitude: Nullable(Type.Number()) }),
      Type.Null(),
    ]),
  }),
  xmp: Type.Object({ creatorTool: Nullable(Type.String()), historyActions: Type.Integer() }),
  iptc: Type.Boolean(),
  signals: Type.Array(Type.Object({ kind: StringEnum(IMAGE_SIGNALS), evidence: Type.String() })),
});

export const ImageReaderResult = Ok({ images: Type.Array(ImageReport) }, 'ImageReaderResult');

export const MAP_PROVIDERS = ['nominatim', 'google'] as const;
export type MapProvider = (typeof MAP_PROVIDERS)[number];

export const ToolsMapRequest = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'What to find; "… near <place>" also names the center',
    }),
    radiusKm: Type.Number({ minimum: 0.1, maximum: 500, default: 10 }),
    near: Type.Optional(
      Type.String({ minLength: 1, maxLength: 300, description: 'A place to search around, geocoded by the provider' }),
    ),
    center: Type.Optional(
      Type.Object(
        { lat: Type.Number({ minimum: -90, maximum: 90 }), lon: Type.Number({ minimum: -180, maximum: 180 }) },
        { description: 'Search around this point (wins over near)' },
      ),
    ),
    placesProviderApiKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          'Caller-supplied key (or cred:NAME from your vault); overrides the server key; never stored, ' +
          'logged or echoed',
      }),
    ),
  },
  { $id: 'ToolsMapRequest', additionalProperties: true },
);

export const Place = Type.Object({
  name: Type.String(),
  address: Nullable(Type.String()),
  rating: Nullable(Type.Number({ description: 'As the provider gives it; null when it has none' })),
  ratingCount: Nullable(Type.Number()),
  distanceKm: Nullable(Type.Number({ description: 'From the center; null without one' })),
  lat: Type.Number(),
  lon: Type.Number(),
  source: Type.String({ description: "Where the place can be looked up (the provider's page for it)" }),
  phone: Type.Optional(Nullable(Type.String({ description: 'Its phone, as the provider has it' }))),
  website: Type.Optional(Nullable(Type.String())),
  email: Type.Optional(Nullable(Type.String({ description: 'OpenStreetMap `email` / `contact:email` tags' }))),
});

export const ToolsMapResult = Ok(
  {
    provider: StringEnum(MAP_PROVIDERS),
    query: Type.String({ description: 'What the provider was asked for' }),
    center: Type.Union([
      Type.Object({
        lat: Type.Number(),
        lon: Type.Number(),
        from: StringEnum(['center', 'near'] as const),
        label: Nullable(Type.String()),
      }),
      Type.Null(),
    ]),
    radiusKm: Type.Number(),
    places: Type.Array(Place),
    notes: Type.Array(Type.String()),
  },
  'ToolsMapResult',
);
