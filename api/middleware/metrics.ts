import { timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { QUEUE_NAMES } from '../../jobs/registry.js';
import { WORK_METRICS } from '../../jobs/metrics.js';
import { isOperator } from '../../shared/auth/operator.js';
import type { Deps } from '../../shared/deps.js';
import { poolUsage } from '../../shared/db/knex.js';
import { unauthorized } from '../../shared/errors.js';

export const METRICS_PATH = '/metrics';
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;
/** Refusals operators watch: the burst limit and the plan quota. */
const REJECTIONS = new Set(['rateLimitExceeded', 'quotaExceeded']);

/**
 * One registry per app: the process's defaults (event-loop lag, heap, GC), HTTP timings, and what is read on each
 * scrape.
 */
function buildRegistry(deps: Deps) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'awp_' });
  const http = new Histogram({
    name: 'awp_http_request_duration_seconds',
    help: 'HTTP request duration by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const rejections = new Counter({
    name: 'awp_http_rejections_total',
    help: 'Requests refused by the rate limit or the plan quota',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'awp_queue_jobs',
    help: 'BullMQ jobs per queue and state, summed over the queue shards (read on scrape)',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      const counts = await Promise.all(
        deps.queues
          .all(QUEUE_NAMES)
          .map(async ({ queue }) => [queue.name, await queue.getJobCounts(...QUEUE_STATES)] as const),
      );
      const totals = new Map<string, Record<string, number>>();
      for (const [queue, byState] of counts) {
        const total = totals.get(queue) ?? {};
        for (const state of QUEUE_STATES) total[state] = (total[state] ?? 0) + (byState[state] ?? 0);
        totals.set(queue, total);
      }
      for (const [queue, byState] of totals)
        for (const state of QUEUE_STATES) this.set({ queue, state }, byState[state]!);
    },
  });
  new Gauge({
    name: 'awp_pg_pool_connections',
    help: 'Postgres pool of this process: used, free, and acquires waiting',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const usage = poolUsage(deps);
      if (usage) for (const [state, n] of Object.entries(usage)) this.set({ state }, n);
    },
  });
  // What the work processes count, when they run in this process (npm start); apart, each serves its own
  // (METRICS_PORT).
  return { registry: Registry.merge([registry, WORK_METRICS]), http, rejections };
}

function scrapeAllowed(ctx: Context, token: string | undefined): boolean {
  if (isOperator(ctx.state.principal)) return true;
  const sent = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
  if (!token || !sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Prometheus metrics. `observe` (outermost, so it sees the status the client
 * got) times every request under its route template (`/v1/runs/:runId`, never
 * the raw path, so ids do not explode the label set); `serve` answers GET
 * /metrics to an admin token or `METRICS_TOKEN`, before the rate limit.
 */
export function metrics(deps: Deps) {
  const m = buildRegistry(deps);
  return {
    observe: async (ctx: Context, next: Next) => {
      const stop = m.http.startTimer();
      try {
        await next();
      } finally {
        const code = (ctx.body as { error?: string } | null)?.error;
        if (code && REJECTIONS.has(code)) m.rejections.inc({ reason: code });
        const route =
          (ctx as Context & { _matchedRoute?: string })._matchedRoute ??
          (ctx.path.startsWith('/dashboard') ? '/dashboard' : 'unmatched');
        stop({ method: ctx.method, route: String(route), status: String(ctx.status) });
      }
    },
    serve: async (ctx: Context, next: Next) => {
      if (ctx.path !== METRICS_PATH) return next();
      if (!scrapeAllowed(ctx, deps.config.METRICS_TOKEN))
        throw unauthorized('GET /metrics needs an admin token or METRICS_TOKEN');
      ctx.set('Content-Type', m.registry.contentType);
      ctx.body = await m.registry.metrics();
    },
  };
}
