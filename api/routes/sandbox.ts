import { SandboxRequest } from '../../shared/schemas/orchestrator.js';
import { routeGroup } from './group.js';

const r = routeGroup('sandbox', { read: [], write: [], auth: 'public' });

export const routes = [
  r.post('/v1/sandbox/midnight-arbitrage', 'Deterministic arbitrage simulation with chaos modes; no side effects', { body: SandboxRequest }),
  r.post('/v1/benchmarks/local', 'Run a small local protocol benchmark and return its figures', { tag: 'benchmarks', auth: 'bearer', scopes: ['tools:use'] }),
];
