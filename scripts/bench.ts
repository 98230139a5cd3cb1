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
 *   async    async submissions/s at c=50 vs bare Koa + ajv + pg INSERT + queue.add
 *   healthz  GET /healthz at c=50 vs bare Koa hello world
 *   events   webhook deliveries and ledger claims vs bare SKIP LOCKED loops
 *   rss      RSS per process over 10,000 runs, sampled every 1,000
 *   stored   run latency p50 before and after 100,000 old runs are stored
 *   plans    EXPLAIN ANALYZE of every list, claim and retention query on 1,000,000 rows
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
import { benchHttp } from './bench/http.js';
import { benchRuns } from './bench/runs.js';
import { benchCounts } from './bench/counts.js';
import { benchScale } from './bench/scale.js';
import { benchAsync, benchHealthz } from './bench/load-sections.js';
import { benchEvents } from './bench/events.js';
import { benchRss } from './bench/rss.js';
import { benchHeap } from './bench/heap.js';
import { benchStored } from './bench/stored.js';
import { benchPlans } from './bench/plans.js';
import { awpVersusPeers, benchPeers, type PeerResult } from './bench/peers.js';
import { formatSummary, summariseProfile, type CpuProfile } from './bench/profile.js';
import { formatTable, targetRows, type Figures } from './bench/verdicts.js';

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
  BENCH_LOAD_SECONDS: '4',
  BENCH_LOAD_WARMUP_SECONDS: '1',
  BENCH_DELIVERIES: '300',
  BENCH_CLAIMS: '1000',
  BENCH_RSS_RUNS: '1000',
  BENCH_RSS_EVERY: '100',
  BENCH_STORED_RUNS: '20000',
  BENCH_PLAN_ROWS: '20000',
};
if (process.env.BENCH_QUICK === '1') for (const [k, v] of Object.entries(QUICK)) process.env[k] ??= v;

const SECTIONS: Record<string, (env: BenchEnv) => Promise<unknown>> = {
  http: benchHttp,
  runs: benchRuns,
  counts: benchCounts,
  scale: benchScale,
  async: benchAsync,
  healthz: benchHealthz,
  events: benchEvents,
  rss: benchRss,
  stored: benchStored,
  plans: benchPlans,
  // Not in the default list: it installs packages and runs two more engines (--peers asks for it).
  peers: benchPeers,
  // Not in the default list either: it needs the API in this process and --expose-gc (npm run bench:heap).
  heap: benchHeap,
};
const FLAGS = ['--peers'];
const unknownFlags = process.argv.slice(2).filter((a) => !FLAGS.includes(a));
if (unknownFlags.length) {
  console.error(`bench: unknown argument ${unknownFlags.join(' ')} (known: ${FLAGS.join(', ')})`);
  process.exit(2);
}
const wanted = (
  process.env.BENCH_SECTIONS ??
  Object.keys(SECTIONS)
    .filter((s) => s !== 'peers' && s !== 'heap')
    .join(',')
)
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
// Last, so the peers run after awp's own sections and their figures sit beside runs.
if (process.argv.includes('--peers') && !wanted.includes('peers')) wanted.push('peers');
const unknown = wanted.filter((name) => !SECTIONS[name]);
if (unknown.length > 0)
  throw new Error(`unknown bench section ${unknown.join(', ')} (known: ${Object.keys(SECTIONS).join(', ')})`);

// pg_stat_statements needs a Postgres restart and costs a little on every statement: only when counts or stored read
// it.
const env = await benchEnv({
  statements: (wanted.includes('counts') || wanted.includes('stored')) && process.env.BENCH_PG_STATEMENTS !== '0',
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

// Section results are read by name here; their shapes are the sections' own return values.
type Section = Record<string, any>;

/**
 * Only the processes that serve alone: the bench process also holds the load generator, so its RSS is not the API's.
 */
function ownProcesses<T>(byProcess: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(byProcess).filter(([k]) => !k.includes('bench process')));
}

/** Issue 9's targets from this run's figures, printed as a table, plus the per-run counts and the scale figures. */
/** awp ÷ each peer beside the peer's own figures, for the targets table. */
function peersVersus(peers: Record<string, Section> | undefined): Figures['peers'] {
  if (!peers?.awpVersus) return undefined;
  return Object.fromEntries(
    Object.entries(peers.awpVersus as Record<string, Section>).map(([name, v]) => [
      name,
      {
        latencyP50: v.latencyP50,
        throughput: v.throughput,
        p50Ms: peers[name]!.latency.p50,
        perSec: peers[name]!.perSec,
      },
    ]),
  );
}

function summary(r: Record<string, unknown>, e: BenchEnv): Record<string, unknown> {
  const measured = (name: string) => (r[name] && !(r[name] as Section).error ? (r[name] as Section) : undefined);
  const runs = measured('runs');
  const scale = measured('scale');
  const rss = measured('rss');
  const at32 = (scale?.levels as Section[] | undefined)?.find((l) => l.inFlight === 32);
  const figures: Figures = {
    layout: e.split,
    sustained: runs
      ? {
          awpPerSec: runs.awp3StepRun.perSec,
          barePerSec: runs.bareBullmq3StepFlow.perSec,
          inFlight: runs.awp3StepRun.inFlight,
        }
      : at32
        ? { awpPerSec: at32.awp.perSec, barePerSec: at32.bareBullmq.perSec, inFlight: 32 }
        : undefined,
    latency: runs ? { awpP50: runs.awp3StepRun.latency.p50, bareP50: runs.bareBullmq3StepFlow.latency.p50 } : undefined,
    identicalWork: runs?.awpIdenticalWorkRun
      ? {
          awpP50: runs.awpIdenticalWorkRun.latency.p50,
          awpPerSec: runs.awpIdenticalWorkRun.perSec,
          stepHashes: runs.awpIdenticalWorkRun.stepHashes,
        }
      : undefined,
    async: measured('async')
      ? {
          awpPerSec: measured('async')!.awpAsyncSubmissions.perSec,
          barePerSec: measured('async')!.bareKoaAjvPgInsertQueueAdd.perSec,
        }
      : undefined,
    healthz: measured('healthz')
      ? { awpPerSec: measured('healthz')!.awpHealthz.perSec, barePerSec: measured('healthz')!.bareKoaHello.perSec }
      : undefined,
    idleRssMb: ownProcesses(e.idleRssMb),
    bareIdleRssMb: measured('healthz')?.bareKoaHelloIdleRssMb,
    peers: peersVersus(r.peers as Record<string, Section> | undefined),
    rssAfterRuns:
      rss && Object.keys(ownProcesses(rss.lastMb)).length > 0
        ? {
            runs: rss.runs,
            lastMb: ownProcesses(rss.lastMb),
            trendsUp: ownProcesses(
              Object.fromEntries(Object.entries(rss.trend as Section).map(([k, t]) => [k, t.trendsUp])),
            ),
          }
        : undefined,
  };
  const targets = targetRows(figures);
  const lines = [`\nbench summary (${os.cpus().length} cores, ${r.at}, BENCH_SPLIT=${e.split}):`, formatTable(targets)];
  const counts = measured('counts');
  let perRun: Record<string, unknown> | undefined;
  if (counts) {
    const pg = counts.perRun.postgres;
    const rd = counts.perRun.redis;
    perRun = {
      postgresStatements: pg.statements,
      postgresTransactions: pg.transactions,
      postgresRowsWritten: pg.rowsWritten.total,
      postgresTableBytes: pg.tableBytes,
      postgresWalBytes: pg.walBytes,
      redisCommands: rd.commands,
      redisClientCommands: rd.clientCommands,
      redisUsedMemoryBytes: rd.usedMemoryBytes,
      redisKeys: rd.keys,
      bareFlowRedisCommands: counts.bareBullmq3StepFlowPerFlow.redis.commands,
      bareFlowRedisClientCommands: counts.bareBullmq3StepFlowPerFlow.redis.clientCommands,
    };
    lines.push(
      `\nper 3-step run (${counts.runs} runs): Postgres ${pg.statements} statements, ${pg.transactions} ` +
        `transactions, ${pg.rowsWritten.total} rows written, ${pg.tableBytes} B tables, ${pg.walBytes} B WAL; ` +
        `Redis ${rd.commands} commands (${rd.clientCommands} sent by clients), ${rd.usedMemoryBytes} B ` +
        `memory, ${rd.keys} keys; bare flow: ${perRun.bareFlowRedisCommands} Redis commands ` +
        `(${perRun.bareFlowRedisClientCommands} sent)`,
    );
  }
  const levels = (scale?.levels as Section[] | undefined)?.map((l) => ({
    inFlight: l.inFlight,
    awpPerSec: l.awp.perSec,
    awpP50: l.awp.latency.p50,
    barePerSec: l.bareBullmq.perSec,
    ratio: l.throughputRatio,
  }));
  if (levels)
    lines.push(
      `\nruns/s by in flight: ` +
        `${levels.map((l) => `${l.inFlight}: ${l.awpPerSec} (bare ${l.barePerSec}, ${l.ratio}×)`).join('; ')}`,
    );
  const stored = measured('stored');
  if (stored)
    lines.push(
      `p50 with ${stored.after.runsStored} runs stored: ${stored.after.latency.p50} ms (with ` +
        `${stored.before.runsStored}: ${stored.before.latency.p50} ms, ` +
        `${stored.p50Ratio}×${stored.flat ? ', flat' : ', NOT flat'})`,
    );
  if (rss)
    lines.push(
      `RSS series (runs:MB): ${Object.entries(rss.seriesMb as Record<string, string>)
        .map(([k, s]) => `${k} ${s}`)
        .join('; ')}`,
    );
  process.stderr.write(`${lines.join('\n')}\n`);
  return {
    targets,
    ...(perRun ? { perRun } : {}),
    ...(levels ? { scale: levels } : {}),
    ...(stored
      ? {
          storedP50: {
            before: stored.before.latency.p50,
            after: stored.after.latency.p50,
            runsStored: stored.after.runsStored,
            ratio: stored.p50Ratio,
          },
        }
      : {}),
  };
}
