import { benchToken, runOnce } from './awp-client.js';
import { sustained, type BenchEnv } from './env.js';
import { rssMb } from './processes.js';
import { rssTrend } from './verdicts.js';

/**
 * RSS of each serving process (API, workers) idle, then every BENCH_RSS_EVERY
 * (1,000) runs of BENCH_RSS_RUNS (10,000) sync 3-step runs, BENCH_RSS_IN_FLIGHT
 * (32) at a time, then idle again; and whether each series trends up.
 */
export async function benchRss(env: BenchEnv) {
  const total = Number(process.env.BENCH_RSS_RUNS ?? 10_000);
  const every = Number(process.env.BENCH_RSS_EVERY ?? 1_000);
  const inFlight = Number(process.env.BENCH_RSS_IN_FLIGHT ?? 32);
  const token = await benchToken(env);
  const series: Record<string, Array<{ runs: number; mb: number }>> = Object.fromEntries(
    Object.keys(env.pids).map((k) => [k, []]),
  );
  const sample = (runs: number) => {
    for (const [k, pid] of Object.entries(env.pids)) {
      const mb = rssMb(pid);
      if (mb !== null) series[k]!.push({ runs, mb });
    }
  };
  const idleBefore = Object.fromEntries(Object.entries(env.pids).map(([k, pid]) => [k, rssMb(pid)]));
  sample(0);
  let done = 0;
  const seconds = await sustained(total, inFlight, async () => {
    await runOnce(env, token);
    done++;
    if (done % every === 0) {
      sample(done);
      process.stderr.write(
        `bench: rss: ${done} runs: ${Object.entries(series)
          .map(([k, s]) => `${k} ${s.at(-1)?.mb} MB`)
          .join(', ')}\n`,
      );
    }
  });
  await new Promise((r) => setTimeout(r, Number(process.env.BENCH_IDLE_SETTLE_MS ?? 3000)));
  const idleAfter = Object.fromEntries(Object.entries(env.pids).map(([k, pid]) => [k, rssMb(pid)]));
  return {
    layout: env.split,
    runs: total,
    perSec: Math.round((total / seconds) * 10) / 10,
    idleAtStartMb: env.idleRssMb,
    idleBeforeMb: idleBefore,
    idleAfterMb: idleAfter,
    seriesMb: Object.fromEntries(
      Object.entries(series).map(([k, s]) => [k, s.map((p) => `${p.runs}:${p.mb}`).join(' ')]),
    ),
    trend: Object.fromEntries(Object.entries(series).map(([k, s]) => [k, rssTrend(s)])),
    lastMb: Object.fromEntries(Object.entries(series).map(([k, s]) => [k, s.at(-1)?.mb ?? null])),
  };
}
