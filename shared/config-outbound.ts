// Outbound calls (mail, webhooks, LLM, web pages, images, maps, chains): config schema properties.
import { Type } from '@sinclair/typebox';

export const outboundConfig = {
  SMTP_URL: Type.Optional(
    Type.String({
      description: 'SMTP URL for activation mail; unset keeps mail in the database and logs that it was queued',
    }),
  ),
  MAIL_FROM: Type.String({ default: 'awp <no-reply@awp.local>', description: 'Sender of activation mail' }),
  AWP_ALLOW_PRIVATE_EGRESS: Type.Boolean({
    default: false,
    description: '1 lets outbound calls reach loopback/private addresses (local development and tests only)',
  }),
  WEBHOOK_RETRY_SCHEDULE_MS: Type.String({
    pattern: '^\\d+(,\\d+)*$',
    default: '5000,300000,1800000,7200000,18000000,36000000,36000000',
    description: 'Delays before webhook attempts 2..n (±20 % jitter); its length caps the retries',
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 10_000, description: 'Time limit of one webhook POST' }),
  DELIVERY_LEASE_SECONDS: Type.Integer({
    minimum: 1,
    default: 60,
    description: 'Lease the dispatcher takes on each claimed delivery',
  }),
  LLM_BASE_URL: Type.Optional(Type.String({ description: 'OpenAI-compatible endpoint for the optional LLM router' })),
  LLM_API_KEY: Type.Optional(Type.String({ description: 'API key of the LLM endpoint' })),
  LLM_MODEL: Type.Optional(Type.String({ description: 'Model name for the LLM router' })),
  LLM_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 4000,
    description: 'How long the LLM router may take before the deterministic router answers instead',
  }),
  WEB_PAGE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 20_000,
    description:
      "Time limit of one page read (hunt's web source, browserReader, imageReader URLs), redirects included; " +
      'slow shops need long',
  }),
  WEB_PAGE_MAX_BYTES: Type.Integer({
    minimum: 1024,
    default: 3_145_728,
    description: "Largest page hunt's web source and browserReader read; a larger one is reported, never cut",
  }),
  HUNT_CONTACT_URL: Type.String({
    default: 'https://github.com/awp/awp#hunt-reading-the-web',
    description:
      "Contact URL in the user agent hunt's readers send (`awp-hunt/1.0 (+URL)`): where a site owner learns who " +
      'reads their pages and how to ask it to stop',
  }),
  HUNT_HOST_INTERVAL_MS: Type.Integer({
    minimum: 0,
    default: 1000,
    description:
      'Least time between two requests hunt sends one host, shared by every process through Redis (a longer ' +
      'robots.txt Crawl-delay wins)',
  }),
  HUNT_HTTP_CACHE_MAX_ROWS: Type.Integer({
    minimum: 0,
    default: 2000,
    description: 'Pages kept in the hunt_http_cache table for revalidation (ETag/Last-Modified); 0 turns it off',
  }),
  HUNT_RENDER_CONCURRENCY: Type.Integer({
    minimum: 0,
    default: 1,
    description: 'Script-rendered pages one process reads in headless chromium at once; 0 never renders',
  }),
  HUNT_RENDER_TIMEOUT_MS: Type.Integer({
    minimum: 500,
    default: 15_000,
    description: 'Time limit of one rendered page read (launch, load and script), after which it is reported',
  }),
  HUNT_SEARCH_RESULTS: Type.Integer({
    minimum: 1,
    maximum: 20,
    default: 8,
    description: 'Candidate pages hunt takes from each search source for one request',
  }),
  ECB_RATES_URL: Type.Optional(
    Type.String({
      description:
        "Where the `hunt.rates` sweep fetches the ECB's daily reference rates (e.g. " +
        'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml); unset: the dated snapshot shipped ' +
        'with the service is used',
    }),
  ),
  IMAGE_MAX_BYTES: Type.Integer({
    minimum: 1024,
    default: 10_485_760,
    description: 'Largest image imageReader reads (from a URL or decoded from base64)',
  }),
  MAP_PROVIDER: Type.Optional(
    Type.Union([Type.Literal('nominatim'), Type.Literal('google')], {
      description:
        'Places provider of POST /v1/tools/map: `nominatim` (a Nominatim-compatible search API) or `google` ' +
        '(Places API Text Search); unset: the tool answers 422',
    }),
  ),
  MAP_PROVIDER_URL: Type.Optional(
    Type.String({
      description: 'Base URL of the places provider; defaults to the public Nominatim or Google Places endpoint',
    }),
  ),
  MAP_PROVIDER_KEY: Type.Optional(
    Type.String({ description: "Server API key of the places provider; a caller's placesProviderApiKey overrides it" }),
  ),
  MAP_CACHE_SECONDS: Type.Integer({
    minimum: 0,
    default: 86_400,
    description: 'How long POST /v1/tools/map (and hunt leads) keep a provider answer in Redis; 0 keeps none',
  }),
  MAP_PROVIDER_INTERVAL_MS: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'Least time between two requests to the places provider, across processes; unset: 1100 for nominatim ' +
        '(its usage policy: one request a second) and 100 for google',
    }),
  ),
  CHAIN_EVM_RPC_URL: Type.Optional(
    Type.String({
      description:
        'EVM JSON-RPC endpoint POST /v1/tools/chainTrace follows `ethereum`/`evm` funds over ' +
        '(eth_getTransactionByHash, receipts, ERC-20 Transfer logs); unset: those chains answer 422',
    }),
  ),
  CHAIN_BTC_ESPLORA_URL: Type.Optional(
    Type.String({
      description:
        'Esplora-compatible Bitcoin API base URL (e.g. https://blockstream.info/api) for chainTrace on ' +
        '`bitcoin`; unset: 422',
    }),
  ),
  CHAIN_TRACE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 10_000,
    description: 'Time limit of one chain provider call',
  }),
};
