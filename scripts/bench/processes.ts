import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** A process the bench started (API, workers, a bare server), with what it needs to measure and stop it. */
export interface BenchChild {
  name: string;
  pid: number;
  /** Where its `--cpu-prof` profile lands when it exits (BENCH_PROFILE=1). */
  profile?: string;
  stop(): Promise<void>;
}

/** Resident set size of a process in MB, read from /proc (Linux): what the OS charges the process, heap or not. */
export function rssMb(pid: number): number | null {
  try {
    const line = fs
      .readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line ? Math.round(Number(line.replace(/\D+/g, '')) / 102.4) / 10 : null;
  } catch {
    return null;
  }
}

/**
 * Compiles the service (`npm run build` → dist/) once per bench run: its processes run as the Procfile runs them,
 * compiled.
 */
let built = false;
function build(): void {
  if (built) return;
  execFileSync(process.execPath, [path.resolve('node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  built = true;
}

/**
 * Starts `node dist/<entry>.js` the way the Procfile runs it: compiled (no
 * TypeScript loader in the process, whose hooks thread alone costs about
 * 45 MB), no npx in between, so a signal reaches the process itself. With
 * `profileDir` it runs under `--cpu-prof`: Node writes the profile when the
 * process exits on its own, which every entry point does on SIGTERM.
 */
export function spawnNode(
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  opts: { profileDir?: string; args?: string[] } = {},
): BenchChild & { child: ChildProcess } {
  build();
  const flags: string[] = [];
  let profile: string | undefined;
  if (opts.profileDir) {
    fs.mkdirSync(opts.profileDir, { recursive: true });
    profile = path.join(opts.profileDir, `${name}.cpuprofile`);
    flags.push('--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`, `--cpu-prof-name=${name}.cpuprofile`);
  }
  // stderr stays attached so a child that fails to start says why.
  const child = spawn(
    process.execPath,
    [...flags, path.resolve('dist', entry.replace(/\.ts$/, '.js')), ...(opts.args ?? [])],
    { env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    child,
    pid: child.pid!,
    profile,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls `ready` until it answers true; fails early when the child exits, or after `timeoutMs`. */
export async function waitReady(
  c: BenchChild & { child: ChildProcess },
  ready: () => Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (c.child.exitCode !== null)
      throw new Error(`${c.name} exited with code ${c.child.exitCode} before it was ready`);
    if (await ready().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${c.name} was not ready within ${timeoutMs} ms`);
}

/** True once `url` answers 200. */
export async function answers200(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await res.arrayBuffer();
  return res.status === 200;
}
