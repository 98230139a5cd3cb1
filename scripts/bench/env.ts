import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startWeb } from '../../api/server.js';
import { loadConfig } from '../../shared/config.js';
import { createDeps, type Deps } from '../../shared/deps.js';
import { migrateLatest } from '../../shared/db/migrate.js';
import { createLogger } from '../../shared/log.js';
import { startDomainWorkers } from '../../workers/domains.js';
import type { Stoppable } from '../../shared/lifecycle.js';
import { freePort, startPostgres, startRedis } from '../local-services.js';
import { enableStatements } from './pg-stats.js';
import { answers200, rssMb, spawnNode, waitReady, type BenchChild } from './processes.js';

/** A span of the bench, on the monotonic clock `--cpu-prof` timestamps use (µs), so a profile can be cut to it. */
export interface ProfileWindow {
  name: string;
  startUs: number;
  endUs: number;
}

export interface BenchEnv {
  deps: Deps;
  url: string;
  redisUrl: string;
  databaseUrl: string;
  /** `0` everything in the bench process, `1` workers in their own, `2` API and workers each in their own. */
  split: '0' | '1' | '2';
  /** The processes that serve the bench (pid by role); the bench process itself when they run in it. */
  pids: Record<string, number>;
  /** RSS (MB) of each serving process once started and idle, before any section ran. */
  idleRssMb: Record<string, number | null>;
  /** Whether pg_stat_statements is loaded (the counts section reads it). */
  statements: boolean;
  profile: { dir: string | null; files: Record<string, string>; windows: ProfileWindow[] };
  /** Runs `fn` and records its span as a profile window named `name`. */
  window<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Environment for a child process that talks to the same Redis and Postgres. */
  childEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
  /**
   * Stops the bench's Redis, waits `downMs` and starts it again on the same port with what it held (only when the
   * bench started Redis itself, with `redisRestartable`).
   */
  restartRedis?: (downMs: number) => Promise<void>;
  stop(): Promise<void>;
}

export const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Private Redis + Postgres (or BENCH_REDIS_URL / BENCH_DATABASE_URL), the API
 * and the domain workers laid out by BENCH_SPLIT (default 2: each in its own
 * process, the production shape, so the load generator in this process does
 * not share the API's event loop and each process's RSS is its own).
 */
export async function benchEnv(opts: { statements: boolean; redisRestartable?: boolean }): Promise<BenchEnv> {
  const stops: Array<() => Promise<void>> = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-bench-'));
  fs.chmodSync(tmp, 0o755);
  let redisUrl = process.env.BENCH_REDIS_URL;
  let restartRedis: BenchEnv['restartRedis'];
  if (!redisUrl) {
    // A Redis that restarts keeps what it held (an append-only file), so the runs in flight go on after it.
    const persist = opts.redisRestartable === true;
    let r = await startRedis(path.join(tmp, 'redis'), { persist });
    stops.push(() => r.stop());
    redisUrl = r.url;
    if (persist)
      restartRedis = async (downMs) => {
        await r.stop();
        await sleep(downMs);
        r = await startRedis(path.join(tmp, 'redis'), { persist, port: r.port });
      };
  }
  let databaseUrl = process.env.BENCH_DATABASE_URL;
  let statements = false;
  if (!databaseUrl) {
    // BENCH_PG_FAST=1 turns off fsync and synchronous commit, to see how much of a figure is disk flushes.
    const pgOpts = { database: 'awp_bench', fast: process.env.BENCH_PG_FAST === '1' };
    let p = await startPostgres(path.join(tmp, 'pg'), pgOpts);
    if (opts.statements) {
      // shared_preload_libraries is read only at server start: set it, then restart the cluster on the same port.
      p = await enableStatements(p, () => startPostgres(path.join(tmp, 'pg'), { ...pgOpts, port: p.port }));
      statements = true;
    }
    stops.push(() => p.stop());
    databaseUrl = p.url;
  } else if (opts.statements) {
    statements = await enableStatements(null, null, databaseUrl).then(
      () => true,
      () => false,
    );
  }
  const split = (process.env.BENCH_SPLIT ?? '2') as BenchEnv['split'];
  if (!['0', '1', '2'].includes(split)) throw new Error(`BENCH_SPLIT must be 0, 1 or 2 (got ${split})`);
  const base = {
    REDIS_URL: redisUrl,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '10000000',
    ACCOUNT_RATE_LIMIT_PER_MINUTE: '10000000',
    QUEUE_PREFIX: '{awp-bench}',
    WORKER_CONCURRENCY: '16',
    AWP_ALLOW_PRIVATE_EGRESS: '1',
    // As deploy/Dockerfile sets it (docs/operations.md); MALLOC_ARENA_MAX=16 measures glibc's default on 2 cores.
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
  };
  const childEnv = (extra: Record<string, string> = {}) => ({ ...process.env, ...base, ...extra });
  const config = loadConfig(childEnv());
  const deps = createDeps(config, createLogger('silent'));
  await migrateLatest(deps.db);

  const profileDir =
    process.env.BENCH_PROFILE === '1'
      ? (process.env.BENCH_PROFILE_DIR ?? path.join(os.tmpdir(), `awp-bench-profile-${Date.now()}`))
      : null;
  if (profileDir && split === '0')
    process.stderr.write(
      'bench: BENCH_PROFILE=1 profiles child processes; with BENCH_SPLIT=0 run `node --cpu-prof --import tsx ' +
        'scripts/bench.ts` instead\n',
    );
  const profile: BenchEnv['profile'] = { dir: profileDir, files: {}, windows: [] };
  const parts: Stoppable[] = [];
  const children: BenchChild[] = [];
  const pids: Record<string, number> = {};
  if (split === '0') {
    parts.push(...startDomainWorkers(deps));
    pids['api+workers (bench process)'] = process.pid;
  } else {
    const workers = spawnNode('workers', 'workers/domains.ts', childEnv(), { profileDir: profileDir ?? undefined });
    children.push(workers);
    pids.workers = workers.pid;
    const orchestrator = deps.queues.queue('orchestrator');
    await waitReady(workers, async () => (await orchestrator.getWorkersCount()) > 0);
  }
  let url: string;
  if (split === '2') {
    const port = await freePort();
    const api = spawnNode('api', 'api/server.ts', childEnv({ PORT: String(port), HOST: '127.0.0.1' }), {
      profileDir: profileDir ?? undefined,
    });
    children.push(api);
    pids.api = api.pid;
    url = `http://127.0.0.1:${port}`;
    await waitReady(api, () => answers200(`${url}/healthz`));
  } else {
    const web = await startWeb(deps, 0, '127.0.0.1');
    parts.push(web);
    url = web.url;
    if (split === '1') pids['api (bench process)'] = process.pid;
  }
  for (const c of children) if (c.profile) profile.files[c.name] = c.profile;
  // Let start-up garbage settle before calling the processes idle.
  await sleep(Number(process.env.BENCH_IDLE_SETTLE_MS ?? 3000));
  const idleRssMb = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, rssMb(pid)]));

  return {
    deps,
    url,
    redisUrl,
    databaseUrl,
    split,
    pids,
    idleRssMb,
    statements,
    profile,
    childEnv,
    restartRedis,
    async window(name, fn) {
      const startUs = nowUs();
      try {
        return await fn();
      } finally {
        profile.windows.push({ name, startUs, endUs: nowUs() });
      }
    },
    async stop() {
      for (const c of children.reverse()) await c.stop();
      for (const p of parts.reverse()) await p.stop();
      await deps.close();
      for (const s of stops.reverse()) await s();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

export function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]! * 100) / 100;
  return { n: s.length, p50: q(0.5), p99: q(0.99) };
}

/** Runs `task` `total` times with at most `inFlight` at once; returns the elapsed seconds. */
export async function sustained(
  total: number,
  inFlight: number,
  task: (i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) await task(next++);
    }),
  );
  return (performance.now() - started) / 1000;
}

/**
 * Latency of `once` run one at a time (after a warm-up), then its sustained
 * rate with `inFlight` at once; `around` wraps the sustained phase (a profile window).
 */
export async function latencyAndRate(
  once: () => Promise<unknown>,
  n: number,
  total: number,
  inFlight = 32,
  around = <T>(fn: () => Promise<T>) => fn(),
) {
  for (let w = 0; w < 5; w++) await once();
  const latency: number[] = [];
  for (let k = 0; k < n; k++) {
    const t = performance.now();
    await once();
    latency.push(performance.now() - t);
  }
  const seconds = await around(() => sustained(total, inFlight, once));
  return { latency: stats(latency), perSec: Math.round((total / seconds) * 10) / 10, inFlight };
}
