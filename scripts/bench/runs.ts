import { cpuPerOp, rolePids } from './cpu.js';
import { FlowProducer, QueueEvents, Worker, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { stepRounds } from '../../bench/peers/workload.js';
import { benchmarkRuns, benchToken, runOnce } from './awp-client.js';
import { latencyAndRate, type BenchEnv } from './env.js';

/**
 * A bare BullMQ 3-step chain (3 queues, trivial processors, root on a 4th),
 * the primitive the run engine is built on: producer and workers in this process.
 */
export async function startBareFlows(redisUrl: string) {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null }) as unknown as ConnectionOptions;
  const prefix = '{bare-bench}';
  const names = ['bare-a', 'bare-b', 'bare-c', 'bare-root'];
  const workers = names.map(
    (name) =>
      new Worker(name, async (job) => ({ step: job.name, at: Date.now() }), { connection, prefix, concurrency: 16 }),
  );
  const events = new QueueEvents('bare-root', { connection, prefix });
  await events.waitUntilReady();
  const flows = new FlowProducer({ connection, prefix });
  flows.setMaxListeners(1000);
  let i = 0;
  const run = `${Date.now().toString(36)}`;
  return {
    async once() {
      const id = `f${run}.${i++}`;
      const tree = await flows.add({
        name: 'root',
        queueName: 'bare-root',
        opts: { jobId: id },
        children: [
          {
            name: 'c',
            queueName: 'bare-c',
            children: [{ name: 'b', queueName: 'bare-b', children: [{ name: 'a', queueName: 'bare-a' }] }],
          },
        ],
      });
      await tree.job.waitUntilFinished(events, 30_000);
    },
    async close() {
      await flows.close();
      await events.close();
      await Promise.all(workers.map((w) => w.close()));
      (connection as unknown as Redis).disconnect();
    },
  };
}

/**
 * 3-step runs through awp (`POST /v1/orchestrator/run`, answered when the
 * run rests) beside bare BullMQ 3-step flows: latency one at a time, then the
 * sustained rate at BENCH_IN_FLIGHT (32). Two workloads: the real one (hunt →
 * resolve → resolve; its sustained phase is the profile window
 * `runs.sustained`) and the identical-work one (3 `benchmark` steps, each
 * the peers' BENCH_STEP_HASHES SHA-256 rounds), which the peers section is
 * compared with.
 */
export async function benchRuns(
  env: BenchEnv,
  n = Number(process.env.BENCH_N ?? 100),
  total = Number(process.env.BENCH_TOTAL ?? 300),
) {
  const inFlight = Number(process.env.BENCH_IN_FLIGHT ?? 32);
  const roles = await rolePids(env);
  // CPU by process over each sustained phase: with everything on one machine, the rate is bounded by the sum.
  const cpu: Record<string, Record<string, number>> = {};
  const measured =
    (name: string, keep: string[]) =>
    async <T>(fn: () => Promise<T>) => {
      const picked = Object.fromEntries(
        Object.entries(roles).filter(([role]) => keep.includes(role) || keep.includes('*')),
      );
      const { value, cpuMsPerOp } = await cpuPerOp(picked, total, fn);
      cpu[name] = cpuMsPerOp;
      return value;
    };
  const bareFlows = await startBareFlows(env.redisUrl);
  const bare = await latencyAndRate(
    () => bareFlows.once(),
    n,
    total,
    inFlight,
    measured('bareBullmq3StepFlow', ['bench (client)', 'redis']),
  );
  await bareFlows.close();
  const token = await benchToken(env);
  const awpCpu = measured('awp3StepRun', ['*']);
  const awp = await latencyAndRate(
    () => runOnce(env, token),
    n,
    total,
    inFlight,
    (fn) => env.window('runs.sustained', () => awpCpu(fn)),
  );
  const hashes = stepRounds();
  const identical = await latencyAndRate(
    benchmarkRuns(env, token, hashes),
    n,
    total,
    inFlight,
    measured('awpIdenticalWorkRun', ['*']),
  );
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  const versusBare = (r: typeof awp, cpuName: string) => ({
    latencyP50: ratio(r.latency.p50, bare.latency.p50),
    latencyP99: ratio(r.latency.p99, bare.latency.p99),
    throughput: ratio(r.perSec, bare.perSec),
    cpuPerRun: ratio(cpu[cpuName]?.total ?? 0, cpu.bareBullmq3StepFlow?.total || 1),
  });
  return {
    layout: env.split,
    bareBullmq3StepFlow: bare,
    awp3StepRun: { workload: 'hunt → resolve → resolve', ...awp },
    awpIdenticalWorkRun: {
      workload: `benchmark × 3, ${hashes} SHA-256 rounds per step`,
      stepHashes: hashes,
      ...identical,
    },
    cpuMsPerRun: cpu,
    ratios: versusBare(awp, 'awp3StepRun'),
    identicalWorkRatios: versusBare(identical, 'awpIdenticalWorkRun'),
  };
}
