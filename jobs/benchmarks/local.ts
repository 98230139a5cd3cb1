import type { Deps } from '../../shared/deps.js';
import { pingDb } from '../../shared/db/knex.js';
import { OrchestratorRequest, routeRequest } from '../orchestrator/index.js';
import { assertValid } from '../../shared/validation.js';
import { runArbitrage } from '../sandbox/index.js';

/** Runs `fn` n times in a row and reports the median, p95 and rate. */
function timed(n: number, fn: () => unknown | Promise<unknown>) {
  return async () => {
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await fn();
      samples.push(performance.now() - t);
    }
    samples.sort((a, b) => a - b);
    const total = samples.reduce((a, b) => a + b, 0);
    const q = (p: number) =>
      Math.round(samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]! * 1000) / 1000;
    return { n, p50Ms: q(0.5), p95Ms: q(0.95), opsPerSec: Math.round((n / total) * 1000) };
  };
}

/**
 * A small benchmark of this instance's own parts: validation, routing, the sandbox, and one round trip to each store.
 */
export async function localBenchmark(deps: Pick<Deps, 'db' | 'redis'>) {
  const sample = {
    request: 'find an espresso machine under $200 and pay for it',
    conversationId: 'c1',
    metadata: { a: 1 },
  };
  const started = performance.now();
  const figures = {
    validation: await timed(500, () => assertValid(OrchestratorRequest, { ...sample }))(),
    routing: await timed(200, () => routeRequest({ request: sample.request }))(),
    sandboxRun: await timed(200, () => runArbitrage('modelError'))(),
    postgresRoundTrip: await timed(30, () => pingDb(deps.db))(),
    redisRoundTrip: await timed(30, () => deps.redis.ping())(),
  };
  return {
    ok: true,
    measuredAt: new Date().toISOString(),
    totalMs: Math.round(performance.now() - started),
    node: process.version,
    figures,
  };
}
