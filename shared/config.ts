import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { serviceConfig } from './config-service.js';
import { runConfig } from './config-runs.js';
import { outboundConfig } from './config-outbound.js';
import { integrationConfig } from './config-integrations.js';
import { securityConfig } from './config-security.js';
import { housekeepingConfig } from './config-housekeeping.js';
import { telemetryConfig } from './config-telemetry.js';
import { hashTag, parseClusterNodes } from './redis/cluster.js';
import { depthLimits } from './queue-depth.js';

/**
 * Every environment variable the service reads, in one schema. The table of
 * docs/configuration.md is written from this list (`npm run docs:config`); `loadConfig` fails fast on a
 * bad value instead of letting a typo surface as a runtime surprise.
 */
export const ConfigSchema = Type.Object({
  ...serviceConfig,
  ...runConfig,
  ...outboundConfig,
  ...integrationConfig,
  ...securityConfig,
  ...housekeepingConfig,
  ...telemetryConfig,
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
  try {
    depthLimits((converted as Config).QUEUE_DEPTH_MAX_BY_DOMAIN);
  } catch (err) {
    throw new Error(`Invalid configuration: ${(err as Error).message}`);
  }
  const redisProblem = redisSettingsProblem(converted as Config);
  if (redisProblem) throw new Error(`Invalid configuration: ${redisProblem}`);
  if ((converted as Config).NODE_ENV === 'production' && !(converted as Config).AWP_MASTER_KEY) {
    throw new Error(
      'Invalid configuration: AWP_MASTER_KEY is required when NODE_ENV=production (openssl rand -base64 32)',
    );
  }
  return Object.freeze(converted as Config);
}

/** What is wrong with the Redis settings together (each is valid alone), or null. */
function redisSettingsProblem(c: Config): string | null {
  if (c.REDIS_CLUSTER_NODES) {
    if (c.REDIS_URL) return 'set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both';
    try {
      parseClusterNodes(c.REDIS_CLUSTER_NODES);
    } catch (err) {
      return (err as Error).message;
    }
  }
  if ((c.REDIS_CLUSTER_NODES || c.QUEUE_SHARDS > 1) && hashTag(c.QUEUE_PREFIX) === null) {
    const why = c.REDIS_CLUSTER_NODES ? 'on a Redis Cluster' : 'with QUEUE_SHARDS > 1';
    return `QUEUE_PREFIX ${JSON.stringify(c.QUEUE_PREFIX)} needs a hash tag ${why} (such as {awp})`;
  }
  return null;
}
