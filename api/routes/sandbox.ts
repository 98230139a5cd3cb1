import { runArbitrage } from '../../jobs/sandbox/logic.js';
import { routeRequest } from '../../jobs/orchestrator/route.js';
import { SandboxRequest, OrchestratorRequest } from '../../shared/schemas/orchestrator.js';
import { assertValid } from '../../shared/validation.js';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('sandbox', { read: [], write: [], auth: 'public' });

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
    const q = (p: number) => Math.round(samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]! * 1000) / 1000;
    return { n, p50Ms: q(0.5), p95Ms: q(0.95), opsPerSec: Math.round((n / total) * 1000) };
  };
}

export const routes = [
  r.post('/v1/sandbox/midnight-arbitrage', 'Deterministic arbitrage simulation with chaos modes; no side effects', {
    body: SandboxRequest,
    handler: ({ body }) => runArbitrage(body.chaos),
  }),
  r.post('/v1/benchmarks/local', 'Run a small local protocol benchmark and return its measured figures', {
    tag: 'benchmarks', auth: 'bearer', scopes: ['tools:use'],
    handler: async (_input, deps) => {
      const sample = { request: 'find an espresso machine under $200 and pay for it', conversationId: 'c1', metadata: { a: 1 } };
      const started = performance.now();
      const figures = {
        validation: await timed(500, () => assertValid(OrchestratorRequest, { ...sample }))(),
        routing: await timed(200, () => routeRequest({ request: sample.request }))(),
        sandboxRun: await timed(200, () => runArbitrage('modelError'))(),
        postgresRoundTrip: await timed(30, () => deps.db.raw('select 1'))(),
        redisRoundTrip: await timed(30, () => deps.redis.ping())(),
      };
      return { ok: true, measuredAt: new Date().toISOString(), totalMs: Math.round(performance.now() - started), node: process.version, figures };
    },
  }),
];
