// The runtime routes of the contract: health, liveness, readiness, runtime summary and public status.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../shared/errors.js';
import { UNAVAILABLE_RETRY_AFTER_SEC } from '../middleware/errors.js';
import { readiness, type Health, type Readiness } from '../../shared/health.js';
import { SERVICE_VERSION } from '../../shared/version.js';
import { Ok } from '../../shared/schemas/common.js';
import { ApiStatus, RuntimeSummary } from '../contract/schemas.js';
import type { AnyRoute } from '../../shared/http/route-spec.js';
import { defineRoute } from '../../shared/http/route-spec.js';

const startedAt = Date.now();

const Health = Ok(
  {
    version: Type.String(),
    contractCount: Type.Integer(),
    checks: Type.Object({ postgres: Type.String(), redis: Type.String() }),
  },
  'Health',
);
const Liveness = Ok({ uptimeSec: Type.Integer() }, 'Liveness');
const Readiness = Ok(
  {
    checks: Type.Object({ postgres: Type.String(), redis: Type.String(), migrations: Type.String() }),
    pendingMigrations: Type.Array(Type.String()),
  },
  'Readiness',
);

/** 503 naming what is down, with every check in `details`, and when to ask again. */
function failIfDown(checks: Health | Readiness['checks']): void {
  const down = Object.entries(checks)
    .filter(([, v]) => v === 'down')
    .map(([k]) => k);
  if (down.length > 0)
    throw new AppError(
      'unavailable',
      `Dependency down: ${down.join(', ')}`,
      { checks },
      {
        'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SEC),
      },
    );
}

/** The runtime routes; the route table is read when a request comes (see contractRoutes). */
export function runtimeRoutes(table: () => AnyRoute[]): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/healthz',
      tag: 'runtime',
      auth: 'public',
      summary: 'Health for load balancers, from memory',
      description:
        'Postgres and Redis reachability as last checked in the background (at most 1 s old, 2 s while a ' +
        'dependency does not answer); no dependency round trip on the request. Answers 503 unavailable ' +
        'naming the dependency that is down. Exempt from the rate limit.',
      response: { 200: Health },
      handler: async (_input, deps) => {
        const { checks } = await deps.health.current();
        failIfDown(checks);
        return { ok: true, version: SERVICE_VERSION, contractCount: table().length, checks };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/livez',
      tag: 'runtime',
      auth: 'public',
      summary: 'Liveness: the process answers; no dependency is called',
      description:
        "For an orchestrator's liveness probe: restart the process only when this fails. A dependency outage " +
        'shows in /healthz and /readyz, not here.',
      response: { 200: Liveness },
      handler: () => ({ ok: true, uptimeSec: Math.round(process.uptime()) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/readyz',
      tag: 'runtime',
      auth: 'public',
      summary: 'Readiness, checked live',
      description:
        'Pings Postgres and Redis (1 s each) and checks that no migration this code ships is pending; one ' +
        "answer is shared for 2 s. For a deploy step or an orchestrator's readiness probe: 503 naming what " +
        'is down or pending. Exempt from the rate limit, which needs Redis. Load balancers should probe ' +
        '/healthz.',
      response: { 200: Readiness },
      handler: async (_input, deps) => {
        const ready = await readiness(deps);
        failIfDown(ready.checks);
        if (ready.checks.migrations === 'pending')
          throw new AppError('unavailable', `Migrations pending: ${ready.pendingMigrations.join(', ')}`, ready);
        return { ok: true, ...ready };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/runtime',
      tag: 'runtime',
      auth: 'bearer',
      summary: 'Runtime configuration summary (no secrets)',
      response: { 200: RuntimeSummary },
      handler: async (_input, deps) => {
        const c = deps.config;
        return {
          ok: true,
          version: SERVICE_VERSION,
          node: process.version,
          uptimeSec: Math.round((Date.now() - startedAt) / 1000),
          queuePrefix: c.QUEUE_PREFIX,
          workerQueues: c.WORKER_QUEUES ?? 'all',
          limits: {
            ratePerMinute: c.RATE_LIMIT_PER_MINUTE,
            unverifiedRequests: c.UNVERIFIED_REQUEST_LIMIT,
            builderMonthlyRuns: c.BUILDER_MONTHLY_RUNS,
            maxBodyBytes: c.MAX_BODY_BYTES,
            runSyncWaitMs: c.RUN_SYNC_WAIT_MS,
            stepTimeoutMs: c.STEP_TIMEOUT_MS,
          },
          features: {
            smtp: Boolean(c.SMTP_URL),
            llmRouter: Boolean(c.LLM_BASE_URL && c.LLM_MODEL),
            privateEgress: c.AWP_ALLOW_PRIVATE_EGRESS,
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/status',
      tag: 'runtime',
      auth: 'public',
      summary: 'Public API status',
      response: { 200: ApiStatus },
      handler: async (_input, deps) => {
        const { checks } = await deps.health.current();
        const degraded = Object.values(checks).includes('down');
        return {
          ok: true,
          status: degraded ? 'degraded' : 'operational',
          version: SERVICE_VERSION,
          checks,
          time: new Date().toISOString(),
        };
      },
    }),
  ];
}
