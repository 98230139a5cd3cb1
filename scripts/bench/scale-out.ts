/**
 * The runs/s a layout of processes allows, by calculation from the CPU each process spends per run (the `workers`
 * section measures it). Pure, so test/unit/bench-verdicts.test.ts holds it to its definition and the docs can
 * quote its output.
 *
 * Each run costs every process some CPU. A process that runs one JavaScript thread (the API, each worker process,
 * the load generator) or one command loop (Redis) can spend at most one core: it allows 1000 / (its ms per run)
 * runs/s, and W worker processes sharing the workers' CPU W times that. A machine allows its cores × 1000 / (the
 * ms per run of every process on it). The rate is the smallest of these bounds. Postgres runs a backend per
 * connection, so only its machine bounds it. Not counted: disk flushes (fsync on commit), queueing and lock waits,
 * which lower the measured rate below the bound; a Node process also spends a little CPU off its main thread (GC,
 * I/O), which raises its one-core bound a little.
 */

/** CPU milliseconds per run by role, as cpuPerOp measures them (`api`, `workers`, `postgres`, `redis`, ...). */
export type CpuMsPerRun = Record<string, number>;

/** Roles that run as one single-threaded process: one core at most, whatever the machine has. */
export const ONE_CORE_ROLES = ['api', 'redis', 'bench (client)'];

export interface Machine {
  name: string;
  cores: number;
  /** The roles whose processes run on it. */
  roles: string[];
}

export interface Bound {
  name: string;
  /** The expression, with this run's numbers in it, e.g. `2 × 1000 / 29.9`. */
  expression: string;
  runsPerSec: number;
}

export interface Calculation {
  runsPerSec: number;
  limitedBy: string;
  /** The whole calculation as one line the docs can quote. */
  calculation: string;
  bounds: Bound[];
}

const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

/** The runs/s `workerProcesses` worker processes allow on `machines`, given the CPU each role spends per run. */
export function runsPerSecBound(cpu: CpuMsPerRun, workerProcesses: number, machines: Machine[]): Calculation {
  const bounds: Bound[] = [];
  const add = (name: string, cores: number, ms: number) => {
    if (ms > 0)
      bounds.push({ name, expression: `${cores} × 1000 / ${round(ms, 2)}`, runsPerSec: round((cores * 1000) / ms) });
  };
  for (const role of ONE_CORE_ROLES) add(`${role} process`, 1, cpu[role] ?? 0);
  add(`${workerProcesses} worker process${workerProcesses === 1 ? '' : 'es'}`, workerProcesses, cpu.workers ?? 0);
  for (const m of machines) {
    const ms = m.roles.reduce((sum, role) => sum + (cpu[role] ?? 0), 0);
    add(`${m.name} (${m.cores} cores: ${m.roles.join(', ')})`, m.cores, ms);
  }
  if (bounds.length === 0) throw new Error('no CPU per run measured: nothing to calculate from');
  const least = bounds.reduce((a, b) => (b.runsPerSec < a.runsPerSec ? b : a));
  return {
    runsPerSec: least.runsPerSec,
    limitedBy: least.name,
    calculation:
      `runs/s ≈ min(${bounds.map((b) => `${b.name}: ${b.expression} = ${b.runsPerSec}`).join('; ')}) = ` +
      `${least.runsPerSec} (${least.name})`,
    bounds,
  };
}

/** The roles of the bench's own layout that are not worker processes (what stays on the first machine). */
export function otherRoles(cpu: CpuMsPerRun): string[] {
  return Object.keys(cpu).filter((role) => role !== 'workers' && role !== 'total');
}

/** BENCH_WORKER_COUNTS (`1,2,4`): distinct whole numbers from 1 to 16, run in ascending order. */
export function workerCounts(text = process.env.BENCH_WORKER_COUNTS ?? '1,2,4'): number[] {
  const counts = text.split(',').map((s) => Number(s.trim()));
  if (counts.some((n) => !Number.isInteger(n) || n < 1 || n > 16))
    throw new Error(`BENCH_WORKER_COUNTS must list whole numbers from 1 to 16, got ${text}`);
  return [...new Set(counts)].sort((a, b) => a - b);
}
