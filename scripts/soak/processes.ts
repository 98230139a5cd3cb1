import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../local-services.js';

/**
 * The Procfile's processes, each its own OS process as a platform runs them:
 * two `web` (each on its own port), two `worker`, one `delivery`, one
 * `clock`. Each can be SIGKILLed and started again with the same role,
 * port and environment; one that exits on its own is started again too (a
 * supervisor would) and recorded. Output goes to a log file per role.
 */
export type Role = 'web' | 'worker' | 'delivery' | 'clock';
const ENTRIES: Record<Role, string> = {
  web: 'api/server',
  worker: 'workers/domains',
  delivery: 'workers/delivery',
  clock: 'workers/clock',
};
export const LAYOUT: Array<{ name: string; role: Role }> = [
  { name: 'web1', role: 'web' },
  { name: 'web2', role: 'web' },
  { name: 'worker1', role: 'worker' },
  { name: 'worker2', role: 'worker' },
  { name: 'delivery', role: 'delivery' },
  { name: 'clock', role: 'clock' },
];

/** One life of a process: from its spawn to its exit, and how it ended. */
export interface Incarnation {
  name: string;
  pid: number;
  startedAt: number;
  endedAt?: number;
  ended?: string;
}

export interface Proc {
  name: string;
  role: Role;
  port?: number;
  child: ChildProcess;
  ready: boolean;
  /** Set while the soak means it to be down (killed, waiting for its restart), so its exit is not a crash. */
  expectDown: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ProcessSet {
  readonly procs = new Map<string, Proc>();
  readonly lives: Incarnation[] = [];
  private stopping = false;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly opts: { tsx: boolean; logDir: string; restartAfterS: number; now: () => number },
  ) {
    fs.mkdirSync(opts.logDir, { recursive: true });
  }

  /** Compiles dist/ (unless running from TypeScript), then starts every process and waits until each says started. */
  async start(): Promise<void> {
    if (!this.opts.tsx) {
      const tsc = path.resolve('node_modules/typescript/bin/tsc');
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
    }
    for (const { name, role } of LAYOUT) {
      const port = role === 'web' ? await freePort() : undefined;
      this.spawn(name, role, port);
    }
    await this.waitReady([...this.procs.keys()]);
  }

  webUrls(): string[] {
    return [...this.procs.values()].filter((p) => p.role === 'web').map((p) => `http://127.0.0.1:${p.port}`);
  }

  /** The current pid of each process that is up. */
  pids(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const p of this.procs.values()) if (p.child.exitCode === null && p.child.pid) out[p.name] = p.child.pid;
    return out;
  }

  /** SIGKILLs `name` now and starts it again after the restart delay; resolves once it is up again. */
  async kill(name: string): Promise<void> {
    const p = this.procs.get(name)!;
    p.expectDown = true;
    const exited = new Promise((r) => p.child.once('exit', r));
    p.child.kill('SIGKILL');
    await exited;
    await sleep(this.opts.restartAfterS * 1000);
    this.spawn(p.name, p.role, p.port);
    // A restart that does not come up (a dependency away too) is left to the crash handler's restarts, not fatal.
    await this.waitReady([name]).catch(() => undefined);
  }

  /** SIGTERM to each, in reverse start order; the exit codes by name (a clean stop is 0). */
  async stop(timeoutMs = 30_000): Promise<Record<string, number | string>> {
    this.stopping = true;
    const codes: Record<string, number | string> = {};
    for (const p of [...this.procs.values()].reverse()) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
      const exited = new Promise<number | string>((r) => p.child.once('exit', (code, sig) => r(code ?? sig ?? '?')));
      p.child.kill('SIGTERM');
      const timer = sleep(timeoutMs).then(() => 'no exit within 30 s' as const);
      codes[p.name] = await Promise.race([exited, timer]);
      if (codes[p.name] === 'no exit within 30 s') p.child.kill('SIGKILL');
    }
    return codes;
  }

  private spawn(name: string, role: Role, port?: number): void {
    const entry = this.opts.tsx ? `${ENTRIES[role]}.ts` : path.join('dist', `${ENTRIES[role]}.js`);
    const args = this.opts.tsx ? ['--import', 'tsx', entry] : [entry];
    const env = { ...this.env, ...(port ? { PORT: String(port), HOST: '127.0.0.1' } : {}) };
    // The first life of a role starts its log afresh; later lives add to it.
    const first = !this.procs.has(name);
    const log = fs.createWriteStream(path.join(this.opts.logDir, `${name}.log`), { flags: first ? 'w' : 'a' });
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const proc: Proc = { name, role, port, child, ready: false, expectDown: false };
    let tail = '';
    const onData = (d: Buffer) => {
      log.write(d);
      if (proc.ready) return;
      tail = (tail + d.toString()).slice(-4096);
      if (tail.includes('"msg":"started"')) proc.ready = true;
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const life: Incarnation = { name, pid: child.pid!, startedAt: this.opts.now() };
    this.lives.push(life);
    child.once('exit', (code, signal) => {
      life.endedAt = this.opts.now();
      life.ended = signal ? `signal ${signal}` : `exit ${code}`;
      log.end();
      if (this.stopping || proc.expectDown) return;
      // Not asked for: record it as a crash, and start it again as a supervisor would.
      life.ended += ' (on its own)';
      setTimeout(() => {
        if (!this.stopping) this.spawn(name, role, port);
      }, this.opts.restartAfterS * 1000);
    });
    this.procs.set(name, proc);
  }

  private async waitReady(names: string[], timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const name of names) {
      for (;;) {
        const p = this.procs.get(name)!;
        if (p.ready) break;
        if (Date.now() > deadline) throw new Error(`${name} did not start within ${timeoutMs / 1000} s`);
        await sleep(100);
      }
    }
  }
}
