import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { harness } from './harness.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * Runs a project entry point as a real child process: compiled (`dist/….js`,
 * as the Procfile runs it) or TypeScript with the tsx loader in-process (not
 * the tsx CLI, which would put a second process between the test and the
 * code: a SIGKILL must hit the worker itself).
 */
export function spawnEntry(
  entry: string,
  env: Record<string, string>,
  args: string[] = [],
): ChildProcess & { output: () => string } {
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  // The run's master key (shared/vault), so a child opens what the harness sealed; a test may override it.
  const vault = harness.config?.AWP_MASTER_KEY ? { AWP_MASTER_KEY: harness.config.AWP_MASTER_KEY } : {};
  const child = spawn(process.execPath, [...loader, path.join(ROOT, entry), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...vault, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return Object.assign(child, { output: () => out });
}

/**
 * Resolves when `predicate(output)` holds, rejects after `ms` or if the child exits first. The default is patience,
 * not a speed claim: a child loading the whole service under a loaded CI machine took 23 s to start.
 */
export async function waitForOutput(
  child: ChildProcess & { output: () => string },
  predicate: (out: string) => boolean,
  ms = 60_000,
): Promise<string> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (predicate(child.output())) return child.output();
    if (child.exitCode !== null) throw new Error(`exited early (${child.exitCode}):\n${child.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting; output so far:\n${child.output()}`);
}

/** Exit code after `signal`, or throws if the process does not exit within `ms`. */
export async function stopWith(child: ChildProcess, signal: NodeJS.Signals, ms = 20_000): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill(signal);
  const timer = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('did not exit in time')), ms).unref(),
  );
  try {
    return await Promise.race([exited, timer]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
}
