import { spawn } from 'node:child_process';
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
import { startPostgres, startRedis } from '../local-services.js';

/** Private Redis + Postgres (or BENCH_REDIS_URL / BENCH_DATABASE_URL), the app and workers, for one bench run. */
export async function benchEnv(): Promise<{ deps: Deps; url: string; redisUrl: string; databaseUrl: string; stop(): Promise<void> }> {
  const stops: Array<() => Promise<void>> = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-bench-'));
  fs.chmodSync(tmp, 0o755);
  let redisUrl = process.env.BENCH_REDIS_URL;
  if (!redisUrl) {
    const r = await startRedis(path.join(tmp, 'redis'), { persist: false });
    stops.push(r.stop);
    redisUrl = r.url;
  }
  let databaseUrl = process.env.BENCH_DATABASE_URL;
  if (!databaseUrl) {
    // BENCH_PG_FAST=1 turns off fsync and synchronous commit, to see how much of a figure is disk flushes.
    const p = await startPostgres(path.join(tmp, 'pg'), { database: 'awp_bench', fast: process.env.BENCH_PG_FAST === '1' });
    stops.push(p.stop);
    databaseUrl = p.url;
  }
  const config = loadConfig({ ...process.env, REDIS_URL: redisUrl, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '10000000', QUEUE_PREFIX: '{awp-bench}', WORKER_CONCURRENCY: '16', AWP_ALLOW_PRIVATE_EGRESS: '1' });
  const deps = createDeps(config, createLogger('silent'));
  await migrateLatest(deps.db);
  // BENCH_SPLIT=1 runs the workers in a process of their own (the production shape), the web here.
  const parts: Stoppable[] = [];
  if (process.env.BENCH_SPLIT === '1') {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('workers/domains.ts')], {
      env: { ...process.env, REDIS_URL: redisUrl, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', QUEUE_PREFIX: config.QUEUE_PREFIX, WORKER_CONCURRENCY: '16' },
      stdio: 'ignore',
    });
    parts.push({ name: 'workers', stop: () => new Promise<void>((r) => { child.once('exit', () => r()); child.kill('SIGTERM'); }) });
  } else {
    parts.push(...startDomainWorkers(deps));
  }
  const web = await startWeb(deps, 0, '127.0.0.1');
  parts.push(web);
  return {
    deps, url: web.url, redisUrl, databaseUrl,
    async stop() {
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
export async function sustained(total: number, inFlight: number, task: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < total) await task(next++);
  }));
  return (performance.now() - started) / 1000;
}

/** Latency of `once` run one at a time (after a warm-up), then its sustained rate with `inFlight` at once. */
export async function latencyAndRate(once: () => Promise<unknown>, n: number, total: number, inFlight = 32) {
  for (let w = 0; w < 5; w++) await once();
  const latency: number[] = [];
  for (let k = 0; k < n; k++) {
    const t = performance.now();
    await once();
    latency.push(performance.now() - t);
  }
  const seconds = await sustained(total, inFlight, once);
  return { latency: stats(latency), perSec: Math.round((total / seconds) * 10) / 10 };
}
