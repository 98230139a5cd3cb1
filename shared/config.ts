import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * Every environment variable the service reads, in one schema. The table of
 * docs/configuration.md is written from this list (`npm run docs:config`); `loadConfig` fails fast on a
 * bad value instead of letting a typo surface as a runtime surprise.
 */
export const ConfigSchema = Type.Object({
  NODE_ENV: Type.String({ default: 'development', description: '`production` enforces HTTPS webhook endpoints' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'HTTP port of the web process' }),
  HOST: Type.String({ default: '0.0.0.0', description: 'Interface the web process binds' }),
  TRUST_PROXY: Type.Boolean({
    default: false,
    description: '1 trusts X-Forwarded-* (client IP for rate limits) from a fronting proxy',
  }),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({ description: 'Base URL used in links (activation, shareUrl); defaults to http://localhost:PORT' }),
  ),
  DATABASE_URL: Type.Optional(
    Type.String({ description: 'Postgres URL; when unset `npm start` starts a local Postgres under .data/' }),
  ),
  REDIS_URL: Type.Optional(
    Type.String({ description: 'Redis URL; when unset `npm start` starts a local redis-server under .data/' }),
  ),
  DB_POOL_MAX: Type.Integer({
    minimum: 1,
    maximum: 500,
    default: 10,
    description: 'Postgres connections per process (API and workers share a process under npm start)',
  }),
  QUEUE_PREFIX: Type.String({
    default: '{awp}',
    description: 'BullMQ key prefix; the hash tag keeps a flow on one Redis Cluster slot',
  }),
  LOG_LEVEL: Type.String({ default: 'info', description: 'pino level (trace, debug, info, warn, error, silent)' }),
  HTTP_HEADERS_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 10_000,
    description: 'How long a client may take to send request headers; slower ones get 408 and are disconnected',
  }),
  HTTP_REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 30_000,
    description: 'How long a client may take to send a whole request, body included (408 after)',
  }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 65_000,
    description:
      "How long an idle keep-alive connection stays open; keep it above a fronting load balancer's idle timeout",
  }),
  MAX_BODY_BYTES: Type.Integer({
    minimum: 1024,
    default: 1_048_576,
    description: 'Largest accepted JSON body; larger answers 413',
  }),
  RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 60,
    description: 'Burst limit per token (per client IP on public routes)',
  }),
  ACCOUNT_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 300,
    description: 'Burst limit per account, across all its tokens (more tokens do not buy more requests)',
  }),
  UNVERIFIED_REQUEST_LIMIT: Type.Integer({
    minimum: 0,
    default: 5,
    description: 'Workflow requests a not-yet-activated account may make',
  }),
  BUILDER_MONTHLY_RUNS: Type.Integer({
    minimum: 0,
    default: 500,
    description: 'Monthly workflow quota of the builder plan',
  }),
  IDEMPOTENCY_TTL_HOURS: Type.Integer({
    minimum: 1,
    default: 24,
    description: 'How long an Idempotency-Key replays its first response',
  }),
  IDEMPOTENCY_LEASE_SECONDS: Type.Integer({
    minimum: 3,
    maximum: 3600,
    default: 60,
    description:
      'How long a request that died mid-way (process crash) keeps its Idempotency-Key claimed; a live ' +
      'request renews its claim',
  }),
  RUN_SYNC_WAIT_MS: Type.Integer({
    minimum: 0,
    default: 25_000,
    description: 'How long POST /v1/orchestrator/run waits for a run to rest before answering 202',
  }),
  STEP_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 120_000, description: 'Upper bound on one domain step' }),
  JOB_RETRY_BASE_MS: Type.Integer({
    minimum: 1,
    default: 500,
    description:
      'First retry delay of step and finalize jobs; it doubles over 10 attempts (500: about 4 min), riding ' +
      'out a Postgres or Redis restart',
  }),
  PROGRESS_QUIET_MS: Type.Integer({
    minimum: 100,
    default: 10_000,
    description: 'A step quiet this long gets a humanized progress event',
  }),
  WORKER_QUEUES: Type.Optional(
    Type.String({ description: 'Comma-separated domain queues this worker runs (default: all)' }),
  ),
  WORKER_LOCK_MS: Type.Integer({
    minimum: 500,
    default: 30_000,
    description: "BullMQ job lock; a crashed worker's job is retried after about this long",
  }),
  WORKER_CONCURRENCY: Type.Integer({
    minimum: 1,
    default: 8,
    description: 'Concurrent jobs per queue in a worker process',
  }),
  SHUTDOWN_GRACE_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 7000,
    description:
      'How long SIGTERM lets in-flight requests and jobs finish before connections are force-closed; the ' +
      'process exits at most 2 s later',
  }),
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
  APPROVAL_WAITPOINT_TTL_HOURS: Type.Number({
    exclusiveMinimum: 0,
    default: 72,
    description:
      'Hours an approval waitpoint (awaitingApproval) stays open; then the clock fails it closed: the run ' +
      'rests `expired`',
  }),
  INPUT_WAITPOINT_TTL_HOURS: Type.Number({
    exclusiveMinimum: 0,
    default: 168,
    description: 'Hours a choice waitpoint (NEEDS_INPUT) stays open before the run rests `expired`',
  }),
  WAITPOINT_ESCALATE_BEFORE: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1,
    default: 0.25,
    description:
      "Fraction of a waitpoint's lifetime left when it escalates (a `waitpoint.escalated` event and a mail " +
      "to the account's approvers, or for a choice to the run's submitter)",
  }),
  PROXY_MISSION_TTL_HOURS: Type.Number({
    exclusiveMinimum: 0,
    default: 72,
    description:
      'Hours a proxy mission stays open for an outcome; then the clock expires it (and the run waiting on it ' +
      'resumes to report that)',
  }),
  SECRET_ENV_PREFIX: Type.String({
    pattern: '^[A-Za-z_][A-Za-z0-9_]{2,63}$',
    default: 'AWP_SECRET_',
    description: 'Only environment variables starting with this can be read through an `env:NAME` secret reference',
  }),
  CONNECTOR_PREFLIGHT_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 5000,
    description: 'Time limit of the endpoint check of a connector preflight (`checkEndpoint: true`)',
  }),
  CONNECTION_SESSION_MAX_HOURS: Type.Integer({
    minimum: 1,
    maximum: 8760,
    default: 720,
    description: 'Longest lifetime a connection session may be given (`expiresAt`); the default lifetime is one hour',
  }),
  BRIDGE_ACTION_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 15_000,
    description: 'Time limit of one call of a hosted bridge action (and of a connector hunt search)',
  }),
  BRIDGE_ACTION_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 20,
    default: 6,
    description: 'Calls a hosted bridge action gets before a transient failure (network, 429, 5xx) fails it',
  }),
  BRIDGE_ACTION_RETRY_BASE_MS: Type.Integer({
    minimum: 1,
    default: 2000,
    description:
      'Delay before the second call of a hosted bridge action; it doubles per attempt, and a longer Retry-After wins',
  }),
  BRIDGE_CLIENT_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 900_000,
    description: "How long a client-hosted bridge action waits for the client's update before it is timedOut",
  }),
  BROWSER_EXECUTABLE: Type.String({
    default: '/usr/bin/chromium',
    description:
      'Chromium that POST /v1/tools/portalBrowser drives (playwright-core); missing: the tool answers 422 ' +
      'and nothing else needs it',
  }),
  PORTAL_STEP_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 10_000,
    description: "Time limit of one portal step (a step's own timeoutMs may lower it)",
  }),
  PORTAL_ACTION_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    maximum: 600_000,
    default: 90_000,
    description: 'Time limit of a whole portal action run, browser start included',
  }),
  SIGNING_KEY: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9+/]{43}=$',
      description:
        'Ed25519 signing key of every process: base64 of the 32-byte private seed (`openssl rand -base64 ' +
        '32`); unset: generated once and kept in Postgres',
    }),
  ),
  AWP_MASTER_KEY: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9+/]{43}=$',
      description:
        'Master key of envelope encryption (base64 of 32 bytes, `openssl rand -base64 32`): wraps each ' +
        "account's data key; required when NODE_ENV=production, generated under DATA_DIR by `npm start` " +
        'otherwise. A secret: never logged',
    }),
  ),
  AWP_MASTER_KEY_PREVIOUS: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9+/]{43}=$',
      description:
        'The master key before the last `npm run master-key:rotate`, while processes still running with it ' +
        'are replaced; unset otherwise',
    }),
  ),
  CREDENTIAL_ROTATION_GRACE_HOURS: Type.Number({
    minimum: 0,
    maximum: 8760,
    default: 24,
    description: 'Hours the previous version of a rotated vault credential stays usable (`cred:NAME@version`)',
  }),
  SESSION_TTL_HOURS: Type.Number({
    exclusiveMinimum: 0,
    maximum: 720,
    default: 12,
    description: 'Lifetime of a dashboard sign-in session (the cookie and its row); signing in again starts a new one',
  }),
  SIGN_IN_ATTEMPTS_PER_15_MIN: Type.Integer({
    minimum: 1,
    default: 10,
    description:
      'Dashboard sign-in attempts allowed per email and, separately, per client IP in 15 minutes (429 after)',
  }),
  METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      description:
        'Port (on HOST) where a worker, delivery or clock process serves GET /metrics; unset: none (the web ' +
        'process serves /metrics on its own port)',
    }),
  ),
  METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      description:
        'Bearer token a Prometheus scraper may use for GET /metrics besides an admin token; unset: admin tokens only',
    }),
  ),
  DATA_DIR: Type.String({ default: '.data', description: 'Where `npm start` keeps local Redis and Postgres data' }),
  RUN_EVENTS_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    default: 30,
    description: 'Days a finished run keeps its events; then only its `final` events stay',
  }),
  RUN_STEPS_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    default: 30,
    description: 'Days a finished run keeps its step rows (the run, its result and proof card stay)',
  }),
  DELIVERY_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    default: 30,
    description: 'Days a webhook delivery chain is kept after its last attempt finished',
  }),
  MAIL_BODY_RETENTION_HOURS: Type.Integer({
    minimum: 0,
    default: 24,
    description:
      'Hours an unsent mail (no SMTP_URL, or sending failed) keeps its body, which holds the activation ' +
      'token; a sent mail drops it at once (so does 0); its SHA-256 stays',
  }),
  MAIL_RETENTION_DAYS: Type.Integer({ minimum: 1, default: 30, description: 'Days an outbound mail row is kept' }),
  QUEUE_KEEP_COMPLETED_SECONDS: Type.Integer({
    minimum: 0,
    default: 3600,
    description: 'Seconds a completed run job stays in Redis (Bull Board shows it); at most 5,000 per queue',
  }),
  QUEUE_KEEP_FAILED_DAYS: Type.Integer({
    minimum: 0,
    default: 7,
    description: 'Days a failed run job stays in Redis for inspection; at most 10,000 per queue',
  }),
  SCHEDULE_TICK_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 1000,
    description:
      'How often each clock process claims due schedules from Postgres (every clock claims; FOR UPDATE SKIP ' +
      'LOCKED makes each tick fire once)',
  }),
  SCHEDULE_MISFIRE_GRACE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 60,
    description:
      "A schedule tick claimed later than this (the clocks were down) follows the schedule's catchUp policy " +
      'instead of running as on time',
  }),
  RETENTION_BATCH_SIZE: Type.Integer({
    minimum: 10,
    maximum: 100_000,
    default: 1000,
    description: 'Rows (runs, for run events and steps) one retention batch deletes; a sweep runs at most 50 batches',
  }),
});

export type Config = Readonly<Static<typeof ConfigSchema>>;

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);

/** Reads the environment once, converts strings to their types and freezes the result. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  for (const flag of ['AWP_ALLOW_PRIVATE_EGRESS', 'TRUST_PROXY']) {
    if (typeof raw[flag] === 'string') raw[flag] = TRUTHY.has((raw[flag] as string).toLowerCase());
  }
  const converted = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, { ...raw, ...overrides }));
  const errors = [...Value.Errors(ConfigSchema, converted)];
  if (errors.length > 0) {
    const list = errors.map((e) => `${e.path.slice(1) || '(root)'}: ${e.message}`).join('; ');
    throw new Error(`Invalid configuration: ${list}`);
  }
  if ((converted as Config).NODE_ENV === 'production' && !(converted as Config).AWP_MASTER_KEY) {
    throw new Error(
      'Invalid configuration: AWP_MASTER_KEY is required when NODE_ENV=production (openssl rand -base64 32)',
    );
  }
  return Object.freeze(converted as Config);
}
