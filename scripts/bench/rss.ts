import { benchToken, runOnce } from './awp-client.js';
import { sustained, type BenchEnv } from './env.js';
import { rssMb } from './processes.js';
import { rssTrend } from './verdicts.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * RSS of each serving process (API, workers) idle, then every BENCH_RSS_EVERY
 * (1,000) runs of BENCH_RSS_RUNS (10,000) sync 3-step runs, BENCH_RSS_IN_FLIGHT
 * (32) at a time, then idle again; and whether each series trends up. Halfway
 * through, Redis is stopped for BENCH_RSS_REDIS_DOWN_MS (3,000) and started
 * again while the runs go on (BENCH_RSS_REDIS_RESTART=0: not): what a process
 * keeps per reconnect shows in the second half. Runs that fail meanwhile (a
 * sync wait that ran out, a submission refused) are counted, not fatal.
 */
export async function benchRss(env: BenchEnv) {
  const total = Number(process.env.BENCH_RSS_RUNS ?? 10_000);
  const every = Number(process.env.BENCH_RSS_EVERY ?? 1_000);
  const inFlight = Number(process.env.BENCH_RSS_IN_FLIGHT ?? 32);
  const downMs = Number(process.env.BENCH_RSS_REDIS_DOWN_MS ?? 3000);
  const restartAt = env.restartRedis ? Math.floor(total / 2) : null;
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
  let failed = 0;
  let restart: Promise<void> | null = null;
  const seconds = await sustained(total, inFlight, async () => {
    try {
      await runOnce(env, token);
    } catch {
      failed++;
      await sleep(200); // refused at once while Redis is away: no tight loop of failures
    }
    done++;
    if (done === restartAt) {
      process.stderr.write(`bench: rss: ${done} runs: restarting Redis (down ${downMs} ms)\n`);
      restart = env.restartRedis!(downMs);
    }
    if (done % every === 0) {
      sample(done);
      process.stderr.write(
        `bench: rss: ${done} runs: ${Object.entries(series)
          .map(([k, s]) => `${k} ${s.at(-1)?.mb} MB`)
          .join(', ')}\n`,
      );
    }
  });
  await restart;
  if (failed > total / 10) throw new Error(`${failed} of ${total} runs failed`);
  await sleep(Number(process.env.BENCH_IDLE_SETTLE_MS ?? 3000));
  const idleAfter = Object.fromEntries(Object.entries(env.pids).map(([k, pid]) => [k, rssMb(pid)]));
  return {
    layout: env.split,
    runs: total,
    failedRuns: failed,
    redisRestartedAt: restartAt,
    mallocArenaMax: env.childEnv().MALLOC_ARENA_MAX ?? null,
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
