import { benchToken, runOnce } from './awp-client.js';
import { sustained, type BenchEnv } from './env.js';
import { rssTrend } from './verdicts.js';

/**
 * The API's live heap, collected, every BENCH_HEAP_EVERY (250) runs of
 * BENCH_HEAP_RUNS (2,000): RSS only shows what V8 has not collected yet
 * (it grows the heap for a while before a full collection), the heap after a
 * forced collection shows what is actually kept. Needs the API in this
 * process (BENCH_SPLIT=1) and `node --expose-gc`: `npm run bench:heap`.
 */
export async function benchHeap(env: BenchEnv) {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (env.split !== '1' || !gc)
    throw new Error('the heap section needs BENCH_SPLIT=1 and node --expose-gc (npm run bench:heap)');
  const total = Number(process.env.BENCH_HEAP_RUNS ?? 2000);
  const every = Number(process.env.BENCH_HEAP_EVERY ?? 250);
  const token = await benchToken(env);
  const heapMb = () => {
    gc();
    gc();
    return Math.round(process.memoryUsage().heapUsed / 1e5) / 10;
  };
  const series = [{ runs: 0, mb: heapMb() }];
  let done = 0;
  await sustained(total, 16, async () => {
    await runOnce(env, token);
    if (++done % every === 0) series.push({ runs: done, mb: heapMb() });
  });
  return { runs: total, heapAfterGcMb: series.map((s) => `${s.runs}:${s.mb}`).join(' '), trend: rssTrend(series) };
}
