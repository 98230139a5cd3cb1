/**
 * What every peer process shares: its inputs from the environment, the
 * measurement loop and how it hands its figures back. The loop mirrors
 * latencyAndRate in scripts/bench/env.ts (5 warm-ups, `n` workflows one at a
 * time, then `total` with `inFlight` at once) but is a copy, not an import:
 * that module loads awp's app, which must not run inside a peer's process.
 */
import fs from 'node:fs';
import { expectedDigest, stepRounds, workflowId } from './workload.js';

export interface PeerInput {
  /** This peer's own database on the bench's Postgres server. */
  databaseUrl: string;
  /** The bench's Redis; passed to every peer, used by none so far (both keep their state in Postgres only). */
  redisUrl: string;
  rounds: number;
  n: number;
  total: number;
  inFlight: number;
}

/** A started peer: `once` runs one whole 3-step workflow and answers its final digest. */
export interface StartedPeer {
  once(runId: string): Promise<string>;
  stop(): Promise<void>;
  /** How the library was used, so the figures can be read right (durability mode, pool size, ...). */
  setup: Record<string, unknown>;
}

function input(env: NodeJS.ProcessEnv): PeerInput {
  const num = (name: string, fallback: number) => {
    const v = Number(env[name] ?? fallback);
    if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a whole number ≥ 1, got ${env[name]}`);
    return v;
  };
  if (!env.PEER_DATABASE_URL)
    throw new Error('PEER_DATABASE_URL is not set (run the peers through `npm run bench -- --peers`)');
  return {
    databaseUrl: env.PEER_DATABASE_URL,
    redisUrl: env.PEER_REDIS_URL ?? '',
    rounds: stepRounds(env),
    n: num('BENCH_N', 100),
    total: num('BENCH_TOTAL', 300),
    inFlight: num('BENCH_IN_FLIGHT', 32),
  };
}

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]! * 100) / 100;
  return { n: s.length, p50: q(0.5), p99: q(0.99) };
}

async function measure(peer: StartedPeer, cfg: PeerInput) {
  // The warm-ups also prove the workflow is right: every step ran once, in order, on the previous step's output.
  for (let w = 0; w < 5; w++) {
    const id = workflowId();
    const got = await peer.once(id);
    if (got !== expectedDigest(id, cfg.rounds))
      throw new Error(`workflow ${id} returned ${got}, not the 3-step digest`);
  }
  const once = async () => {
    const got = await peer.once(workflowId());
    if (typeof got !== 'string' || got.length !== (cfg.rounds ? 64 : 0))
      throw new Error(`workflow returned ${JSON.stringify(got)}`);
  };
  const latency: number[] = [];
  for (let k = 0; k < cfg.n; k++) {
    const t = performance.now();
    await once();
    latency.push(performance.now() - t);
  }
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: cfg.inFlight }, async () => {
      while (next < cfg.total) {
        next++;
        await once();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    latency: stats(latency),
    perSec: Math.round((cfg.total / seconds) * 10) / 10,
    inFlight: cfg.inFlight,
    total: cfg.total,
  };
}

/**
 * The installed version of `pkg`, read from this folder's node_modules (not every package exports its package.json).
 */
export function versionOf(pkg: string): string {
  return (
    JSON.parse(fs.readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;
}

/**
 * A peer's main: starts it, measures it, stops it, and writes
 * `{ ...figures }` or `{ error }` as JSON to PEER_RESULT_FILE (stdout is left
 * to the library's own logging). Exits by itself, non-zero on failure.
 */
export async function runPeer(start: (cfg: PeerInput) => Promise<StartedPeer>): Promise<void> {
  const out = process.env.PEER_RESULT_FILE;
  let result: Record<string, unknown>;
  let peer: StartedPeer | undefined;
  try {
    const cfg = input(process.env);
    peer = await start(cfg);
    const figures = await measure(peer, cfg);
    result = { ...figures, stepHashes: cfg.rounds, setup: peer.setup };
  } catch (err) {
    result = { error: err instanceof Error ? err.message : String(err) };
  }
  try {
    await peer?.stop();
  } catch (err) {
    result.stopError = err instanceof Error ? err.message : String(err);
  }
  if (out) fs.writeFileSync(out, JSON.stringify(result));
  else console.log(JSON.stringify(result));
  // A library may leave timers or pool handles behind after its own shutdown; the figures are written, so leave.
  process.exit('error' in result ? 1 : 0);
}
