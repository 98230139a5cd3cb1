/**
 * What the soak reads from its environment. SOAK_QUICK=1 shrinks it to about
 * a minute of load (plus the drain); every figure can still be set alone.
 */
export interface SoakConfig {
  quick: boolean;
  /** Seconds of load (faults fall inside it). */
  durationS: number;
  /** Longest wait, after the load stops, for runs to rest and deliveries to settle. */
  drainS: number;
  /** Load actions started per second, and at most this many at once. */
  rate: number;
  maxInFlight: number;
  /** A SIGKILL every so many seconds, alternating web and worker; restarted after `restartAfterS`. */
  killEveryS: number;
  restartAfterS: number;
  /** How long Redis, Postgres and the receiver stay away in their outage. */
  outageS: number;
  /** After an outage ends, seconds in which a 503 with Retry-After is still accepted. */
  outageGraceS: number;
  /** Whether Redis keeps its data across the restart (append-only file) or comes back empty. */
  redisPersist: boolean;
  /** Seconds between samples of RSS, Postgres connections and Redis memory. */
  sampleEveryS: number;
  /** The service's webhook retry delays (WEBHOOK_RETRY_SCHEDULE_MS), short so chains end within the soak. */
  webhookRetryMs: string;
  webhookTimeoutMs: number;
  /** Limits the checks hold the samples to. */
  rssMaxMb: number;
  rssSlopeMaxMbPerMin: number;
  /** An RSS slope is judged only over at least this many seconds of one process's life (else reported, not judged). */
  rssSlopeMinSpanS: number;
  redisMaxMb: number;
  dbPoolMax: number;
  /** Run the Procfile entries from TypeScript (node --import tsx) instead of the compiled dist/. */
  tsx: boolean;
  reportFile: string;
}

const num = (env: NodeJS.ProcessEnv, name: string, quick: number, full: number): number => {
  const raw = env[name];
  const v = raw === undefined || raw === '' ? (env.SOAK_QUICK === '1' ? quick : full) : Number(raw);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a non-negative number (got ${raw})`);
  return v;
};

export function soakConfig(env: NodeJS.ProcessEnv = process.env): SoakConfig {
  const quick = env.SOAK_QUICK === '1';
  return {
    quick,
    durationS: num(env, 'SOAK_DURATION_S', 60, 1200),
    drainS: num(env, 'SOAK_DRAIN_S', 300, 420),
    rate: num(env, 'SOAK_RATE', 4, 4),
    maxInFlight: num(env, 'SOAK_MAX_IN_FLIGHT', 24, 32),
    killEveryS: num(env, 'SOAK_KILL_EVERY_S', 15, 120),
    restartAfterS: num(env, 'SOAK_RESTART_AFTER_S', 3, 5),
    outageS: num(env, 'SOAK_OUTAGE_S', 5, 15),
    outageGraceS: num(env, 'SOAK_OUTAGE_GRACE_S', 10, 15),
    redisPersist: env.SOAK_REDIS_PERSIST === '1',
    sampleEveryS: num(env, 'SOAK_SAMPLE_EVERY_S', 2, 10),
    webhookRetryMs: env.SOAK_WEBHOOK_RETRY_MS || (quick ? '1000,2000,4000' : '2000,5000,15000,30000,60000'),
    webhookTimeoutMs: num(env, 'SOAK_WEBHOOK_TIMEOUT_MS', 2000, 3000),
    rssMaxMb: num(env, 'SOAK_RSS_MAX_MB', 400, 400),
    rssSlopeMaxMbPerMin: num(env, 'SOAK_RSS_SLOPE_MAX_MB_PER_MIN', 2, 2),
    rssSlopeMinSpanS: num(env, 'SOAK_RSS_SLOPE_MIN_SPAN_S', 300, 300),
    redisMaxMb: num(env, 'SOAK_REDIS_MAX_MB', 256, 256),
    dbPoolMax: num(env, 'SOAK_DB_POOL_MAX', 10, 10),
    tsx: env.SOAK_TSX === '1',
    reportFile: env.SOAK_REPORT || '.data/soak-report.md',
  };
}

/** Attempts a webhook chain may take: the first and one per retry delay. */
export const maxAttempts = (c: SoakConfig) => c.webhookRetryMs.split(',').length + 1;
