import { runArbitrage } from './logic.js';
import { localBenchmark } from '../benchmarks/index.js';
import { LocalBenchmarkResult, SandboxRequest, SandboxResult } from '../../shared/schemas/orchestrator.js';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('sandbox', { read: [], write: [], auth: 'public' });

export const routes = [
  r.post('/v1/sandbox/midnight-arbitrage', 'Deterministic arbitrage simulation with chaos modes; no side effects', {
    body: SandboxRequest,
    response: { 200: SandboxResult },
    handler: ({ body }) => runArbitrage(body.chaos),
  }),
  r.post('/v1/benchmarks/local', 'Run a small local protocol benchmark and return its measured figures', {
    tag: 'benchmarks',
    auth: 'bearer',
    scopes: ['tools:use'],
    response: { 200: LocalBenchmarkResult },
    handler: (_input, deps) => localBenchmark(deps),
  }),
];
