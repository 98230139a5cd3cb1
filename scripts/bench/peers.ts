/**
 * The peers section of `npm run bench -- --peers`: the same 3-step workflow, each step awp's `benchmark` step's
 * computation (bench/peers/workload.ts), in DBOS Transact and in LangGraph JS with its Postgres checkpointer, against
 * this bench's Postgres server (a database of their own each) and Redis, set against the `runs` section's
 * identical-work run. Each peer runs as a child process from bench/peers (its own package.json and lockfile, never
 * part of `npm test`), so none of its dependencies loads into this process. A peer that fails to install, start or
 * finish is reported as `{ error }` and the bench goes on.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { expectedDigest, stepRounds, workflowId } from '../../bench/peers/workload.js';
import { stats, type benchEnv } from './env.js';

type Env = Awaited<ReturnType<typeof benchEnv>>;
export type PeerResult = Record<string, unknown> | { error: string };

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const PEERS_DIR = path.join(ROOT, 'bench/peers');
export const PEERS = ['dbos', 'langgraph'] as const;

/** Replaces every password found in `urls` inside `text`, so a peer's error never carries a credential. */
export function redact(text: string, urls: string[]): string {
  let out = text;
  for (const raw of urls) {
    let password = '';
    try {
      password = decodeURIComponent(new URL(raw).password);
    } catch {
      continue;
    }
    if (password) out = out.split(password).join('***').split(encodeURIComponent(password)).join('***');
  }
  return out;
}

/**
 * Runs a command with its output on stderr (stdout carries the bench's JSON);
 * resolves its exit code (-1 if it could not start or timed out) with the
 * start and end of its output (npm puts its reason first, a crash last).
 */
function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number; echo: boolean },
): Promise<{ code: number; head: string; tail: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let head = '';
    let tail = '';
    const keep = (d: Buffer) => {
      if (opts.echo) process.stderr.write(d);
      if (head.length < 4000) head = (head + d.toString()).slice(0, 4000);
      tail = (tail + d.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    }, opts.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ code: -1, head: '', tail: err.message });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: timedOut ? -1 : (code ?? -1),
        head,
        tail: timedOut ? `timed out after ${opts.timeoutMs} ms` : signal ? `killed by ${signal}\n${tail}` : tail,
      });
    });
  });
}

/** The last non-empty line of a process's output: usually the error it died with. */
const lastLine = (text: string) => text.trim().split('\n').filter(Boolean).pop() ?? '';

/** npm's first two error lines (its code and message); its last one only points at a log file. */
const npmError = (text: string) =>
  text
    .split('\n')
    .filter((l) => /^npm (error|ERR!) \S/.test(l))
    .slice(0, 2)
    .join('; ') || lastLine(text);

/**
 * Installs the peers' packages once: `npm ci` when node_modules is missing
 * or older than the lockfile (npm ci writes node_modules/.package-lock.json).
 * Answers null when they are ready, or why they are not.
 */
export async function installPeers(
  dir = PEERS_DIR,
  opts: { timeoutMs?: number; echo?: boolean } = {},
): Promise<string | null> {
  const marker = path.join(dir, 'node_modules/.package-lock.json');
  const lock = path.join(dir, 'package-lock.json');
  if (fs.existsSync(marker) && (!fs.existsSync(lock) || fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs))
    return null;
  const rel = path.relative(ROOT, dir);
  const where = rel && !rel.startsWith('..') ? rel : dir;
  if (opts.echo !== false) process.stderr.write(`bench: installing the peers' packages (npm ci --prefix ${where})…\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const { code, head } = await run(npm, ['ci', '--prefix', dir, '--no-audit', '--no-fund'], {
    cwd: ROOT,
    timeoutMs: opts.timeoutMs ?? 600_000,
    echo: opts.echo !== false,
  });
  return code === 0 ? null : `npm ci --prefix ${where} failed (${code}): ${npmError(head)}`;
}

/** `databaseUrl` with its database name replaced by `name` (same server, same credentials). */
export function databaseUrlFor(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

const DB_NAME = /^[a-z_][a-z0-9_]*$/;

async function adminQuery(databaseUrl: string, sql: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const q of sql) await client.query(q);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database `name` on the server of `databaseUrl` (dropped first if an earlier bench left it). */
export async function freshDatabase(databaseUrl: string, name: string): Promise<string> {
  if (!DB_NAME.test(name)) throw new Error(`bad database name ${name}`);
  // FORCE: a peer killed mid-run by an earlier bench may have left connections open.
  await adminQuery(databaseUrl, [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, `CREATE DATABASE ${name}`]);
  return databaseUrlFor(databaseUrl, name);
}

export async function dropDatabase(databaseUrl: string, name: string): Promise<void> {
  if (!DB_NAME.test(name)) throw new Error(`bad database name ${name}`);
  await adminQuery(databaseUrl, [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]);
}

/** Rows in every table of the peer's own database, so rows stored per workflow sit beside awp's rows per run. */
export async function storedRows(databaseUrl: string, workflows: number) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>(
      "select quote_ident(table_schema) || '.' || quote_ident(table_name) as name from " +
        "information_schema.tables where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', " +
        "'information_schema') order by 1",
    );
    const perTable: Record<string, number> = {};
    for (const { name } of tables)
      perTable[name] = Number((await client.query<{ n: string }>(`select count(*) as n from ${name}`)).rows[0]!.n);
    const rows = Object.values(perTable).reduce((a, b) => a + b, 0);
    return { workflows, rows, rowsPerWorkflow: Math.round((rows / workflows) * 10) / 10, perTable };
  } finally {
    await client.end();
  }
}

export interface PeerRunOptions {
  dir?: string;
  databaseUrl: string;
  redisUrl: string;
  n: number;
  total: number;
  timeoutMs?: number;
  /** Copy the peer's (and npm's) output to stderr as it comes (default true). */
  echo?: boolean;
}

/** Runs bench/peers/<name>.ts in its own process and collects its figures, or `{ error }` naming why there are none. */
export async function runPeerProcess(name: string, opts: PeerRunOptions): Promise<PeerResult> {
  const dir = opts.dir ?? PEERS_DIR;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `awp-peer-${name}-`));
  const resultFile = path.join(tmp, 'result.json');
  const secrets = [opts.databaseUrl, opts.redisUrl];
  try {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PEER_DATABASE_URL: opts.databaseUrl,
      PEER_REDIS_URL: opts.redisUrl,
      PEER_RESULT_FILE: resultFile,
      BENCH_N: String(opts.n),
      BENCH_TOTAL: String(opts.total),
      BENCH_STEP_HASHES: String(stepRounds()),
      // LangChain would send traces to LangSmith if the caller's shell enabled it; a bench talks to nothing off this
      // machine.
      LANGSMITH_TRACING: 'false',
      LANGCHAIN_TRACING_V2: 'false',
    };
    // The tsx loader comes from awp's own install (cwd is the repository root); the peer's imports resolve from its
    // folder.
    const { code, tail } = await run(process.execPath, ['--import', 'tsx', path.join(dir, `${name}.ts`)], {
      cwd: ROOT,
      env,
      timeoutMs: opts.timeoutMs ?? 600_000,
      echo: opts.echo !== false,
    });
    let result: PeerResult | undefined;
    if (fs.existsSync(resultFile)) {
      try {
        result = JSON.parse(fs.readFileSync(resultFile, 'utf8')) as PeerResult;
      } catch {
        result = undefined;
      }
    }
    if (result && 'error' in result) return { error: redact(String(result.error), secrets) };
    if (code !== 0 || !result)
      return { error: redact(`peer ${name} exited with ${code}: ${lastLine(tail) || 'no output'}`, secrets) };
    return result;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The computation alone, in this process: what 3 steps cost with no engine around them. */
function computationCost(n: number) {
  const rounds = stepRounds();
  const samples: number[] = [];
  for (let k = 0; k < n + 5; k++) {
    const id = workflowId();
    const t = performance.now();
    expectedDigest(id, rounds);
    if (k >= 5) samples.push(performance.now() - t);
  }
  return { stepHashes: rounds, threeSteps: stats(samples) };
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** awp's identical-work run (`runs`) against each peer with figures (>1 latency, <1 throughput: awp slower). */
export function awpVersusPeers(runs: unknown, peers: Record<string, PeerResult>) {
  type Figures = { latency?: { p50?: number; p99?: number }; perSec?: number };
  const awp = (runs as { awpIdenticalWorkRun?: Figures } | undefined)?.awpIdenticalWorkRun;
  if (!awp?.latency?.p50 || !awp.perSec) return undefined;
  const out: Record<string, { latencyP50: number; latencyP99: number; throughput: number }> = {};
  for (const [name, r] of Object.entries(peers)) {
    const p = r as { latency?: { p50?: number; p99?: number }; perSec?: number };
    if (!p.latency?.p50 || !p.latency.p99 || !p.perSec) continue;
    out[name] = {
      latencyP50: ratio(awp.latency.p50, p.latency.p50),
      latencyP99: ratio(awp.latency.p99 ?? 0, p.latency.p99),
      throughput: ratio(awp.perSec, p.perSec),
    };
  }
  return out;
}

export interface BenchPeersOptions {
  n?: number;
  total?: number;
  /** The folder holding the peers' package.json and <peer>.ts files. */
  dir?: string;
  peers?: readonly string[];
  /** Each peer gets the database `${databasePrefix}${peer}`, dropped and created afresh. */
  databasePrefix?: string;
  timeoutMs?: number;
  echo?: boolean;
}

/** The peers section: each peer's figures (or error), sized like the runs section (BENCH_N, BENCH_TOTAL). */
export async function benchPeers(env: Pick<Env, 'databaseUrl' | 'redisUrl'>, opts: BenchPeersOptions = {}) {
  const n = opts.n ?? Number(process.env.BENCH_N ?? 100);
  const total = opts.total ?? Number(process.env.BENCH_TOTAL ?? 300);
  const echo = opts.echo !== false;
  const secrets = [env.databaseUrl, env.redisUrl];
  const result: Record<string, unknown> = {};
  const installError = await installPeers(opts.dir ?? PEERS_DIR, { echo });
  for (const name of opts.peers ?? PEERS) {
    if (installError) {
      result[name] = { error: redact(installError, secrets) };
      continue;
    }
    if (echo) process.stderr.write(`bench: peer ${name}…\n`);
    const database = `${opts.databasePrefix ?? 'awp_peer_'}${name}`;
    try {
      const databaseUrl = await freshDatabase(env.databaseUrl, database);
      const figures = await runPeerProcess(name, {
        dir: opts.dir,
        databaseUrl,
        redisUrl: env.redisUrl,
        n,
        total,
        timeoutMs: opts.timeoutMs,
        echo,
      });
      // 5 warm-ups, n one at a time, total in flight: every workflow the peer ran left its rows here.
      result[name] =
        'error' in figures ? figures : { ...figures, stored: await storedRows(databaseUrl, 5 + n + total) };
    } catch (err) {
      result[name] = { error: redact(err instanceof Error ? err.message : String(err), secrets) };
    } finally {
      // Counted already; a BENCH_DATABASE_URL server is not left holding the peers' tables.
      await dropDatabase(env.databaseUrl, database).catch(() => undefined);
    }
  }
  result.computation = computationCost(n);
  return result;
}
