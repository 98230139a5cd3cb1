// Web process, storage, request limits and idempotency: the properties of the config schema they read.
import { Type } from '@sinclair/typebox';

export const serviceConfig = {
  NODE_ENV: Type.String({ default: 'development', description: '`production` enforces HTTPS webhook endpoints' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'HTTP port of the web process' }),
  HOST: Type.String({ default: '0.0.0.0', description: 'Interface the web process binds' }),
  TRUST_PROXY: Type.Boolean({
    default: false,
    description: '1 trusts X-Forwarded-* (client IP for rate limits) from a fronting proxy',
  }),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({
      description:
        'Base URL used in links (activation, shareUrl) and given to providers for their signed callbacks (Twilio ' +
        'signs over it); defaults to http://localhost:PORT',
    }),
  ),
  DATABASE_URL: Type.Optional(
    Type.String({ description: 'Postgres URL; when unset `npm start` starts a local Postgres under .data/' }),
  ),
  REDIS_URL: Type.Optional(
    Type.String({ description: 'Redis URL; when unset `npm start` starts a local redis-server under .data/' }),
  ),
  REDIS_CLUSTER_NODES: Type.Optional(
    Type.String({
      description:
        'Run on a Redis Cluster instead of REDIS_URL (set one of the two): comma-separated seed nodes, ' +
        '`redis://[user:password@]host:port` (`rediss://` for TLS; credentials from the first). QUEUE_PREFIX ' +
        'must then carry a hash tag ([scale-out](scale-out.md))',
    }),
  ),
  DB_POOL_MAX: Type.Integer({
    minimum: 1,
    maximum: 500,
    default: 10,
    description: 'Postgres connections per process (API and workers share a process under npm start)',
  }),
  QUEUE_PREFIX: Type.String({
    default: '{awp}',
    description:
      "BullMQ key prefix; its hash tag (`{…}`) keeps a queue's keys on one Redis Cluster slot, and rate-limit " +
      'keys start with it, braces dropped',
  }),
  QUEUE_SHARDS: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 1,
    description:
      'Hash-tagged queue shards the step jobs spread over, by run (`{awp}`, `{awp-1}`, …): on a Redis Cluster, more ' +
      "than one spreads the domains' queues over the masters; every domain worker serves every shard",
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
};
