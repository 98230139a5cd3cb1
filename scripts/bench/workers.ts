import os from 'node:os';
import { stepRounds } from '../../bench/peers/workload.js';
import { benchmarkRuns, benchToken } from './awp-client.js';
import { cpuPerOp, rolePids } from './cpu.js';
import { stats, sustained, type BenchEnv } from './env.js';
import { spawnNode, waitReady, type BenchChild } from './processes.js';
import { otherRoles, runsPerSecBound, workerCounts, type CpuMsPerRun } from './scale-out.js';

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/**
 * Scale-out: runs/s of the identical-work 3-step run (3 `benchmark` steps, BENCH_STEP_HASHES rounds each) with
 * 1, 2 and 4 worker processes (BENCH_WORKER_COUNTS), each a `workers` process as BENCH_SPLIT lays out, beside
 * the same API process, BENCH_IN_FLIGHT (32) runs in flight, BENCH_WORKERS_RUNS (300) runs per count after a
 * warm-up. Reports runs/s per count and its ratio to the first count, CPU per run by process (from /proc), and
 * the rate that CPU allows by calculation (scale-out.ts): on this machine, and with the worker processes on a
 * second machine of BENCH_CALC_WORKER_CORES cores (this machine's count by default). The extra worker processes
 * are stopped at the end, so later sections see the bench's usual one.
 */
export async function benchWorkers(env: BenchEnv) {
  if (env.split === '0' || !env.pids.workers)
    throw new Error('the workers section needs the workers in their own process (BENCH_SPLIT=1 or 2)');
  const counts = workerCounts();
  const total = Number(process.env.BENCH_WORKERS_RUNS ?? 300);
  const inFlight = Number(process.env.BENCH_IN_FLIGHT ?? 32);
  const cores = os.cpus().length;
  const secondCores = Number(process.env.BENCH_CALC_WORKER_CORES ?? cores);
  const hashes = stepRounds();
  const once = benchmarkRuns(env, await benchToken(env), hashes);
  const roles = await rolePids(env);
  const orchestrator = env.deps.queues.queue('orchestrator');
  const workerPids = [env.pids.workers];
  const extra: BenchChild[] = [];
  const levels: Array<{
    workerProcesses: number;
    total: number;
    perSec: number;
    latency: ReturnType<typeof stats>;
    cpuMsPerRun: CpuMsPerRun;
  }> = [];
  try {
    for (const n of counts) {
      while (workerPids.length < n) {
        const child = spawnNode(`workers-${workerPids.length + 1}`, 'workers/domains.ts', env.childEnv());
        extra.push(child);
        workerPids.push(child.pid);
        // Each worker process serves the orchestrator queue: the count says every one of them is taking jobs.
        const want = workerPids.length;
        await waitReady(child, async () => (await orchestrator.getWorkersCount()) >= want);
      }
      // Two rounds of warm-up: a new process compiles its hot paths and opens its pools before it is measured.
      await sustained(inFlight * 2, inFlight, once);
      const latency: number[] = [];
      const { value: seconds, cpuMsPerOp } = await cpuPerOp({ ...roles, workers: workerPids }, total, () =>
        sustained(total, inFlight, async () => {
          const t = performance.now();
          await once();
          latency.push(performance.now() - t);
        }),
      );
      const perSec = Math.round((total / seconds) * 10) / 10;
      levels.push({ workerProcesses: n, total, perSec, latency: stats(latency), cpuMsPerRun: cpuMsPerOp });
      process.stderr.write(
        `bench: workers: ${n} worker process${n === 1 ? '' : 'es'}: ${perSec} runs/s, ` +
          `worker CPU ${cpuMsPerOp.workers} ms per run, ${cpuMsPerOp.total} ms in all\n`,
      );
    }
  } finally {
    for (const c of extra.reverse()) await c.stop();
  }
  const base = levels[0]!;
  // The CPU per run of the least contended count: the inputs of the calculation.
  const cpu = Object.fromEntries(Object.entries(base.cpuMsPerRun).filter(([k]) => k !== 'total'));
  const here = { name: 'this machine', cores, roles: Object.keys(cpu) };
  const stay = { name: 'first machine', cores, roles: otherRoles(cpu) };
  const second = { name: 'second machine', cores: secondCores, roles: ['workers'] };
  return {
    layout: env.split,
    workload: `benchmark × 3, ${hashes} SHA-256 rounds per step`,
    stepHashes: hashes,
    inFlight,
    cores,
    levels: levels.map((l) => ({ ...l, ratioToFirst: ratio(l.perSec, base.perSec) })),
    byCalculation: {
      inputs: { cpuMsPerRun: cpu, from: `${base.workerProcesses} worker process(es), measured above` },
      secondMachineCores: secondCores,
      thisMachine: Object.fromEntries(
        levels.map((l) => [
          l.workerProcesses,
          { measured: l.perSec, ...runsPerSecBound(cpu, l.workerProcesses, [here]) },
        ]),
      ),
      workersOnSecondMachine: Object.fromEntries(counts.map((n) => [n, runsPerSecBound(cpu, n, [stay, second])])),
      note:
        'bounds from CPU per run alone (scripts/bench/scale-out.ts): disk flushes, queueing and lock waits lower ' +
        'the measured rate; the client process is the load generator, not part of a deployment',
    },
  };
}
