/**
 * `npm run bench`: measures awp against the raw primitives it is built on,
 * in one run on this machine, and prints the figures and ratios as JSON.
 * Sections: http (vs bare Koa and bare pg), runs (vs bare BullMQ flows),
 * events (webhook deliveries and ledger claims vs bare SKIP LOCKED loops),
 * plans (EXPLAIN ANALYZE of every list, claim and retention query on a
 * throwaway database with BENCH_PLAN_ROWS, 1,000,000, rows per list table).
 * BENCH_SECTIONS=http,runs,events picks sections; BENCH_* variables size them.
 */
import { benchEnv } from './bench/env.js';
import { benchHttp } from './bench/http.js';
import { benchRuns } from './bench/runs.js';
import { benchEvents } from './bench/events.js';
import { benchPlans } from './bench/plans.js';

const SECTIONS: Record<string, (env: Awaited<ReturnType<typeof benchEnv>>) => Promise<unknown>> = {
  http: benchHttp,
  runs: benchRuns,
  events: benchEvents,
  plans: benchPlans,
};
const wanted = (process.env.BENCH_SECTIONS ?? Object.keys(SECTIONS).join(',')).split(',');
const env = await benchEnv();
const report: Record<string, unknown> = { machine: { cpus: (await import('node:os')).cpus().length, node: process.version }, at: new Date().toISOString() };
try {
  for (const name of wanted) {
    const section = SECTIONS[name];
    if (!section) throw new Error(`unknown bench section ${name}`);
    process.stderr.write(`bench: ${name}…\n`);
    report[name] = await section(env);
  }
} finally {
  await env.stop();
}
console.log(JSON.stringify(report, null, 2));
