/**
 * `npm run bench`: measures awp against the raw primitives it is built on,
 * in one run on this machine, and prints the figures and ratios as JSON.
 * Sections: http (vs bare Koa and bare pg), runs (vs bare BullMQ flows),
 * events (webhook deliveries and ledger claims vs bare SKIP LOCKED loops),
 * plans (EXPLAIN ANALYZE of every list, claim and retention query on a
 * throwaway database with BENCH_PLAN_ROWS, 1,000,000, rows per list table).
 * BENCH_SECTIONS=http,runs,events picks sections; BENCH_* variables size them.
 * `npm run bench -- --peers` adds the peers section (bench/peers: the same
 * 3-step workflow in DBOS Transact and LangGraph JS, each in its own process,
 * installed on first use); it also runs when BENCH_SECTIONS names `peers`.
 */
import { benchEnv } from './bench/env.js';
import { benchHttp } from './bench/http.js';
import { benchRuns } from './bench/runs.js';
import { benchEvents } from './bench/events.js';
import { benchPlans } from './bench/plans.js';
import { awpVersusPeers, benchPeers, type PeerResult } from './bench/peers.js';

const SECTIONS: Record<string, (env: Awaited<ReturnType<typeof benchEnv>>) => Promise<unknown>> = {
  http: benchHttp,
  runs: benchRuns,
  events: benchEvents,
  plans: benchPlans,
  // Not in the default list: it installs packages and runs two more engines (--peers asks for it).
  peers: benchPeers,
};
const FLAGS = ['--peers'];
const unknownFlags = process.argv.slice(2).filter((a) => !FLAGS.includes(a));
if (unknownFlags.length) {
  console.error(`bench: unknown argument ${unknownFlags.join(' ')} (known: ${FLAGS.join(', ')})`);
  process.exit(2);
}
const wanted = (process.env.BENCH_SECTIONS ?? Object.keys(SECTIONS).filter((s) => s !== 'peers').join(',')).split(',');
// Last, so the peers run after awp's own sections and their figures sit beside runs.
if (process.argv.includes('--peers') && !wanted.includes('peers')) wanted.push('peers');
const env = await benchEnv();
const report: Record<string, unknown> = { machine: { cpus: (await import('node:os')).cpus().length, node: process.version }, at: new Date().toISOString() };
try {
  for (const name of wanted) {
    const section = SECTIONS[name];
    if (!section) throw new Error(`unknown bench section ${name}`);
    process.stderr.write(`bench: ${name}…\n`);
    report[name] = await section(env);
  }
  const peers = report.peers as Record<string, PeerResult> | undefined;
  const versus = peers && awpVersusPeers(report.runs, peers);
  if (peers && versus) peers.awpVersus = versus;
} finally {
  await env.stop();
}
console.log(JSON.stringify(report, null, 2));
