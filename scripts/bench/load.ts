import { Pool } from 'undici';
import { stats } from './env.js';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The status every answer must have; others are counted as errors. */
  expect: number;
}

export interface LoadResult {
  connections: number;
  seconds: number;
  requests: number;
  perSec: number;
  errors: number;
  /** The first unexpected answer, to say why errors were counted. */
  firstError?: string;
  latency: { n: number; p50: number; p99: number };
}

/**
 * A closed-loop load generator (autocannon's model, on undici): `connections`
 * keep-alive connections, each sending its next request when the previous
 * answer has been read, for a warm-up and then `seconds` measured. Every
 * server under comparison gets the same generator, in this process.
 */
export async function load(
  origin: string,
  req: LoadRequest,
  opts: { connections?: number; seconds?: number; warmupSeconds?: number } = {},
): Promise<LoadResult> {
  const connections = opts.connections ?? Number(process.env.BENCH_CONNECTIONS ?? 50);
  const seconds = opts.seconds ?? Number(process.env.BENCH_LOAD_SECONDS ?? 10);
  const warmup = opts.warmupSeconds ?? Number(process.env.BENCH_LOAD_WARMUP_SECONDS ?? 2);
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  let measuring = false;
  let stop = false;
  let requests = 0;
  let errors = 0;
  let firstError: string | undefined;
  const latency: number[] = [];
  const worker = async () => {
    while (!stop) {
      const t = performance.now();
      try {
        const res = await pool.request({ method: req.method, path: req.path, headers: req.headers, body: req.body });
        const text = await res.body.text();
        if (!measuring) continue;
        requests++;
        latency.push(performance.now() - t);
        if (res.statusCode !== req.expect) {
          errors++;
          firstError ??= `${res.statusCode} ${text.slice(0, 200)}`;
        }
      } catch (err) {
        if (!measuring) continue;
        errors++;
        firstError ??= (err as Error).message;
      }
    }
  };
  const loops = Array.from({ length: connections }, worker);
  await new Promise((r) => setTimeout(r, warmup * 1000));
  measuring = true;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  measuring = false;
  const elapsed = (performance.now() - started) / 1000;
  stop = true;
  await Promise.all(loops);
  await pool.close();
  return {
    connections,
    seconds: Math.round(elapsed * 100) / 100,
    requests,
    perSec: Math.round((requests / elapsed) * 10) / 10,
    errors,
    ...(firstError ? { firstError } : {}),
    latency: stats(latency),
  };
}
