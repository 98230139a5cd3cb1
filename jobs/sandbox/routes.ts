import { runArbitrage } from './logic.js';
import { localBenchmark } from '../benchmarks/index.js';
import { SandboxRequest } from '../../shared/schemas/orchestrator.js';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('sandbox', { read: [], write: [], auth: 'public' });

export const routes = [
  r.post('/v1/sandbox/midnight-arbitrage', 'Deterministic arbitrage simulation with chaos modes; no side effects', {
    body: SandboxRequest,
    handler: ({ body }) => runArbitrage(body.chaos),
  }),
  r.post('/v1/benchmarks/local', 'Run a small local protocol benchmark and return its measured figures', {
    tag: 'benchmarks',
    auth: 'bearer',
    scopes: ['tools:use'],
    handler: (_input, deps) => localBenchmark(deps),
  }),
];
