/**
 * Private Redis and Postgres instances for `npm start` and the test suite,
 * from the system's binaries (installed from Debian's packages when absent).
 * They listen on loopback only, on a free port, with data in a directory the
 * caller chooses. As root, Postgres's binaries run as the `postgres` user
 * because initdb refuses root.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface LocalService {
  url: string;
  stop(): Promise<void>;
}

const isRoot = process.getuid?.() === 0;

function which(bin: string): string | null {
  try {
    return execFileSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

function postgresBinDir(): string | null {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return null;
  const versions = fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(base, versions[0], 'bin') : null;
}

/** Installs redis-server and postgresql from Debian's packages when they are missing. */
export function ensureBinaries(log: (msg: string) => void = console.log): { redis: string; pgBin: string } {
  let redis = which('redis-server');
  let pgBin = postgresBinDir();
  if (!redis || !pgBin) {
    const missing = [!redis && 'redis-server', !pgBin && 'postgresql'].filter(Boolean) as string[];
    if (!isRoot)
      throw new Error(`Missing ${missing.join(' and ')}: install with 'sudo apt-get install -y ${missing.join(' ')}'`);
    log(`installing ${missing.join(', ')} from Debian's packages`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'inherit', env });
    redis = which('redis-server') ?? '/usr/bin/redis-server';
    pgBin = postgresBinDir();
    if (!pgBin) throw new Error('postgresql installed but no initdb found under /usr/lib/postgresql');
  }
  return { redis, pgBin };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`process exited with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, '127.0.0.1');
      sock.once('connect', () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
}

/**
 * Starts redis-server on a free loopback port. `persist` keeps an append-only file in `dir`; `args` are more
 * redis-server options (a cluster node's, say).
 */
export async function startRedis(
  dir: string,
  opts: { persist: boolean; port?: number; bin?: string; args?: string[] },
): Promise<LocalService & { port: number; child: ChildProcess }> {
  fs.mkdirSync(dir, { recursive: true });
  const port = opts.port ?? (await freePort());
  const bin = opts.bin ?? ensureBinaries().redis;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    opts.persist ? 'yes' : 'no',
    '--daemonize',
    'no',
    '--loglevel',
    'warning',
    ...(opts.args ?? []),
  ];
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  await waitForPort(port, 10_000, child);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function asPg(pgBin: string, tool: string, args: string[]): string {
  const cmd = path.join(pgBin, tool);
  return isRoot
    ? execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function readRunningPort(dir: string): number | null {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  try {
    process.kill(pid, 0);
  } catch {
    return null;
  }
  return Number(lines[3]) || null;
}

/**
 * Settings for this workload (many short transactions, each a few small rows
 * and one commit), durability untouched (fsync, synchronous_commit and
 * full_page_writes stay on unless `fast`): more shared buffers than the
 * 128 MB default; no JIT (it compiles plans worth milliseconds for statements
 * that run in a fraction of one); checkpoints at most every 15 min or 2 GB of
 * WAL, so fewer full-page images are written after each; random reads priced
 * as on local SSD.
 */
const WORKLOAD_SETTINGS = [
  '-c shared_buffers=256MB',
  '-c jit=off',
  '-c max_wal_size=2GB',
  '-c checkpoint_timeout=15min',
  '-c random_page_cost=1.1',
];

/**
 * Starts (initialising when new) a Postgres cluster in `dir` on loopback and
 * creates `database`. `fast` turns off durability settings for throwaway test clusters.
 */
export async function startPostgres(
  dir: string,
  opts: { database: string; fast: boolean; pgBin?: string; port?: number },
): Promise<LocalService & { port: number }> {
  const pgBin = opts.pgBin ?? ensureBinaries().pgBin;
  const user = isRoot ? 'postgres' : os.userInfo().username;
  fs.mkdirSync(dir, { recursive: true });
  if (isRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  fs.chmodSync(dir, 0o700);
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    asPg(pgBin, 'initdb', ['-D', dir, '-A', 'trust', '-U', user, '-E', 'UTF8', '--no-locale']);
  }
  let port = readRunningPort(dir);
  if (!port) {
    port = opts.port ?? (await freePort());
    const settings = [
      `-p ${port}`,
      `-k ${dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c max_connections=200',
      ...WORKLOAD_SETTINGS,
    ];
    if (opts.fast) settings.push('-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off');
    asPg(pgBin, 'pg_ctl', [
      '-D',
      dir,
      '-l',
      path.join(dir, 'server.log'),
      '-o',
      settings.join(' '),
      '-w',
      '-t',
      '60',
      'start',
    ]);
  }
  await waitForPort(port, 30_000);
  const exists = asPg(pgBin, 'psql', [
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-U',
    user,
    '-d',
    'postgres',
    '-tAc',
    `SELECT 1 FROM pg_database WHERE datname='${opts.database}'`,
  ]).trim();
  if (exists !== '1') asPg(pgBin, 'createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', user, opts.database]);
  return {
    url: `postgres://${user}@127.0.0.1:${port}/${opts.database}`,
    port,
    async stop() {
      try {
        asPg(pgBin, 'pg_ctl', ['-D', dir, '-m', 'fast', '-w', 'stop']);
      } catch {
        // already stopped
      }
    },
  };
}
