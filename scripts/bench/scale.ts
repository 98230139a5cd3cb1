import { benchToken, runOnce } from './awp-client.js';
import { stats, sustained, type BenchEnv } from './env.js';
import { startBareFlows } from './runs.js';

/** Rate and per-run latency of `once` with `inFlight` at once over `total` (after one round of warm-up). */
async function atLevel(once: () => Promise<unknown>, inFlight: number, total: number) {
  await sustained(inFlight, inFlight, once);
  const latency: number[] = [];
  const seconds = await sustained(total, inFlight, async () => {
    const t = performance.now();
    await once();
    latency.push(performance.now() - t);
  });
  return { inFlight, total, perSec: Math.round((total / seconds) * 10) / 10, latency: stats(latency) };
}

/**
 * Runs/s and per-run latency with 1, 8, 32 and 128 runs in flight
 * (BENCH_SCALE_LEVELS), each level BENCH_SCALE_RUNS runs (200, at least four
 * rounds of the level), beside bare BullMQ 3-step flows at the same levels.
 */
export async function benchScale(env: BenchEnv) {
  const levels = (process.env.BENCH_SCALE_LEVELS ?? '1,8,32,128').split(',').map(Number);
  const runs = Number(process.env.BENCH_SCALE_RUNS ?? 200);
  const token = await benchToken(env);
  const bare = await startBareFlows(env.redisUrl);
  const out: Array<Record<string, unknown>> = [];
  try {
    for (const level of levels) {
      const total = Math.max(runs, level * 4);
      const b = await atLevel(() => bare.once(), level, total);
      const a = await atLevel(() => runOnce(env, token), level, total);
      out.push({
        inFlight: level,
        awp: a,
        bareBullmq: b,
        throughputRatio: Math.round((a.perSec / b.perSec) * 100) / 100,
      });
      process.stderr.write(`bench: scale: ${level} in flight: awp ${a.perSec} runs/s, bare ${b.perSec} flows/s\n`);
    }
  } finally {
    await bare.close();
  }
  return { layout: env.split, levels: out };
}
