import type { BenchEnv } from './env.js';
import { benchHttp } from './http.js';
import { benchRuns } from './runs.js';
import { benchCounts } from './counts.js';
import { benchScale } from './scale.js';
import { benchWorkers } from './workers.js';
import { benchAsync, benchHealthz } from './load-sections.js';
import { benchEvents } from './events.js';
import { benchRss } from './rss.js';
import { benchHeap } from './heap.js';
import { benchStored } from './stored.js';
import { benchPlans } from './plans.js';
import { benchFairness } from './fairness.js';
import { benchPeers } from './peers.js';

/**
 * `npm run bench:quick` (BENCH_QUICK=1): every section, small, in a few minutes; a BENCH_* variable set explicitly
 * wins.
 */
const QUICK: Record<string, string> = {
  BENCH_HTTP_N: '100',
  BENCH_N: '30',
  BENCH_TOTAL: '200',
  BENCH_COUNT_RUNS: '100',
  BENCH_SCALE_RUNS: '100',
  BENCH_WORKERS_RUNS: '100',
  BENCH_LOAD_SECONDS: '4',
  BENCH_LOAD_WARMUP_SECONDS: '1',
  BENCH_DELIVERIES: '300',
  BENCH_CLAIMS: '1000',
  BENCH_RSS_RUNS: '1000',
  BENCH_RSS_EVERY: '100',
  BENCH_STORED_RUNS: '20000',
  BENCH_PLAN_ROWS: '20000',
  BENCH_FAIRNESS_QUEUED: '500',
  BENCH_FAIRNESS_RUNS: '20',
};

/** Fills in the quick sizes (BENCH_QUICK=1) where no BENCH_* variable is set. */
export function applyQuick(env: NodeJS.ProcessEnv = process.env): void {
  if (env.BENCH_QUICK === '1') for (const [k, v] of Object.entries(QUICK)) env[k] ??= v;
}

/** Every section by name, in the default order (see scripts/bench.ts for what each measures). */
export const SECTIONS: Record<string, (env: BenchEnv) => Promise<unknown>> = {
  http: benchHttp,
  runs: benchRuns,
  counts: benchCounts,
  scale: benchScale,
  workers: benchWorkers,
  async: benchAsync,
  healthz: benchHealthz,
  events: benchEvents,
  rss: benchRss,
  stored: benchStored,
  plans: benchPlans,
  // Last of the default list: it leaves a tenant's backlog behind if its clean-up fails.
  fairness: benchFairness,
  // Not in the default list: it installs packages and runs two more engines (--peers asks for it).
  peers: benchPeers,
  // Not in the default list either: it needs the API in this process and --expose-gc (npm run bench:heap).
  heap: benchHeap,
};

export const FLAGS = ['--peers'];

/** The sections to run, in order: BENCH_SECTIONS, else the default list; `--peers` appends the peers. */
export function wantedSections(argv: string[], list = process.env.BENCH_SECTIONS): string[] {
  const wanted = (
    list ??
    Object.keys(SECTIONS)
      .filter((s) => s !== 'peers' && s !== 'heap')
      .join(',')
  )
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // Last, so the peers run after awp's own sections and their figures sit beside runs.
  if (argv.includes('--peers') && !wanted.includes('peers')) wanted.push('peers');
  const unknown = wanted.filter((name) => !SECTIONS[name]);
  if (unknown.length > 0)
    throw new Error(`unknown bench section ${unknown.join(', ')} (known: ${Object.keys(SECTIONS).join(', ')})`);
  return wanted;
}
