import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from './spawn.js';

/**
 * Prism (@stoplight/prism-cli) mocking a provider's published OpenAPI document on a free loopback port, with
 * `--errors`: a request that breaks the contract is answered with an error (422, 401, 404: Prism's
 * application/problem+json), never with a made-up success, so a test fails on it.
 */
export interface PrismMock {
  url: string;
  /** Everything Prism printed (its validation findings name the field a request got wrong). */
  output(): string;
  /** The lines of its output that report a request breaking the contract. */
  violations(): string[];
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * `dynamic`: answers generated from the response schemas (`prism mock -d`) rather than their examples, for a document
 * without examples (Twilio's: the static answer Prism makes without one, `"string"` for a SID, breaks the document's
 * own patterns, which `--errors` then reports as a 500) or whose examples no longer match its schemas (GitHub's).
 */
export async function startPrism(
  document: string,
  waitMs = 120_000,
  opts: { dynamic?: boolean } = {},
): Promise<PrismMock> {
  const port = await freePort();
  const bin = path.join(ROOT, 'node_modules', '.bin', 'prism');
  const args = ['mock', '--errors', ...(opts.dynamic ? ['-d'] : []), '-h', '127.0.0.1', '-p', String(port), document];
  const child: ChildProcess = spawn(bin, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + waitMs;
  while (!/Prism is listening/.test(out)) {
    if (child.exitCode !== null) throw new Error(`prism exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`prism did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    violations: () => out.split('\n').filter((l) => /Violation:|✖ +error/.test(l)),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
