/**
 * `npm run bench`: measures awp against the raw primitives it is built on,
 * in one run on this machine, prints the figures and ratios as JSON on
 * stdout and a summary of issue 9's targets on stderr (also the JSON's
 * `summary`). BENCH_SECTIONS picks sections (comma-separated, in order);
 * BENCH_* variables size them (see each section's file under scripts/bench/).
 *
 *   http     API fixed cost per request vs bare Koa and bare pg (sequential)
 *   runs     3-step run latency and sustained rate vs bare BullMQ 3-step flows, for the real workload
 *            (hunt → resolve → resolve) and the identical-work one (3 benchmark steps, the peers' computation)
 *   counts   per run: Postgres statements, transactions, rows and bytes; Redis commands and memory
 *   scale    runs/s and latency at 1, 8, 32 and 128 in flight, beside bare flows
 *   workers  identical-work runs/s with 1, 2 and 4 worker processes (BENCH_WORKER_COUNTS), CPU per run by process,
 *            and the rate the CPU per run allows with the workers on a second machine (by calculation)
 *   async    async submissions/s at c=50 vs bare Koa + ajv + pg INSERT + queue.add
 *   healthz  GET /healthz at c=50 vs bare Koa hello world
 *   events   webhook deliveries and ledger claims vs bare SKIP LOCKED loops
 *   rss      RSS per process over 10,000 runs, sampled every 1,000, Redis restarted halfway
 *   stored   run latency p50 before and after 100,000 old runs are stored
 *   plans    EXPLAIN ANALYZE of every list, claim and retention query on 1,000,000 rows
 *   fairness tenant B's identical-work run p50 idle, then while tenant A has 5,000 runs queued (canceled after)
 *   peers    (only with `--peers`, or named) the same 3-step workflow in DBOS Transact and
 *            LangGraph JS, each in its own process from bench/peers, installed on first use;
 *            set against the runs section's identical-work run
 *   heap     (only named: `npm run bench:heap`) the API's heap after forced collections
 *            every 250 of 2,000 runs, to tell a leak from heap V8 has not collected yet
 *
 * BENCH_SPLIT (default 2) lays out the processes: 2 runs the API and the
 * workers each in its own process, 1 only the workers, 0 neither.
 * BENCH_PROFILE=1 runs them under `node --cpu-prof` and prints their top
 * self-time functions over the `runs` section's sustained phase.
 */
import fs from 'node:fs';
import os from 'node:os';
import { benchEnv, type BenchEnv } from './bench/env.js';
import { awpVersusPeers, type PeerResult } from './bench/peers.js';
import { formatSummary, summariseProfile, type CpuProfile } from './bench/profile.js';
import { applyQuick, FLAGS, SECTIONS, wantedSections } from './bench/sections.js';
import { summary } from './bench/summary.js';

applyQuick();
const unknownFlags = process.argv.slice(2).filter((a) => !FLAGS.includes(a));
if (unknownFlags.length) {
  console.error(`bench: unknown argument ${unknownFlags.join(' ')} (known: ${FLAGS.join(', ')})`);
  process.exit(2);
}
const wanted = wantedSections(process.argv);

// pg_stat_statements needs a Postgres restart and costs a little on every statement: only when counts or stored read
// it.
const env = await benchEnv({
  statements: (wanted.includes('counts') || wanted.includes('stored')) && process.env.BENCH_PG_STATEMENTS !== '0',
  redisRestartable: wanted.includes('rss') && process.env.BENCH_RSS_REDIS_RESTART !== '0',
});
const report: Record<string, unknown> = {
  machine: {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
  },
  at: new Date().toISOString(),
  layout: { split: env.split, pids: env.pids, idleRssMb: env.idleRssMb },
};
// A section that fails is reported and the others still run: one bad figure should not cost the rest of a long run.
const failed: string[] = [];
try {
  for (const name of wanted) {
    process.stderr.write(`bench: ${name}…\n`);
    try {
      report[name] = await SECTIONS[name]!(env);
    } catch (err) {
      failed.push(name);
      report[name] = { error: (err as Error).message };
      process.stderr.write(`bench: ${name} failed: ${(err as Error).stack}\n`);
    }
  }
  const peers = report.peers as Record<string, PeerResult> | undefined;
  const versus = peers && awpVersusPeers(report.runs, peers);
  if (peers && versus) peers.awpVersus = versus;
} finally {
  await env.stop();
}
if (env.profile.dir) report.profile = profiles(env);
report.summary = summary(report, env);
console.log(JSON.stringify(report, null, 2));
if (failed.length > 0) {
  process.stderr.write(`bench: failed sections: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}

/**
 * The worker's and API's `--cpu-prof` profiles, cut to the sustained phase of `runs` (else every recorded window, else
 * all).
 */
function profiles(e: BenchEnv): Record<string, unknown> {
  const sustainedOnly = e.profile.windows.filter((w) => w.name === 'runs.sustained');
  const windows = sustainedOnly.length > 0 ? sustainedOnly : e.profile.windows;
  const out: Record<string, unknown> = {
    dir: e.profile.dir,
    windows: windows.map((w) => ({ name: w.name, seconds: Math.round((w.endUs - w.startUs) / 1e5) / 10 })),
  };
  for (const [name, file] of Object.entries(e.profile.files)) {
    if (!fs.existsSync(file)) {
      out[name] = { file, error: 'no profile written (the process did not exit by itself)' };
      continue;
    }
    const s = summariseProfile(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, windows, process.cwd());
    process.stderr.write(`\n${formatSummary(`profile ${name} (${file})`, s)}\n`);
    out[name] = { file, ...s };
  }
  return out;
}
