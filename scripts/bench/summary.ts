import os from 'node:os';
import type { BenchEnv } from './env.js';
import { formatTable, targetRows, type Figures } from './verdicts.js';

// Section results are read by name here; their shapes are the sections' own return values.
type Section = Record<string, any>;

/**
 * Only the processes that serve alone: the bench process also holds the load generator, so its RSS is not the API's.
 */
function ownProcesses<T>(byProcess: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(byProcess).filter(([k]) => !k.includes('bench process')));
}

/** awp ÷ each peer beside the peer's own figures, for the targets table. */
function peersVersus(peers: Record<string, Section> | undefined): Figures['peers'] {
  if (!peers?.awpVersus) return undefined;
  return Object.fromEntries(
    Object.entries(peers.awpVersus as Record<string, Section>).map(([name, v]) => [
      name,
      {
        latencyP50: v.latencyP50,
        throughput: v.throughput,
        p50Ms: peers[name]!.latency.p50,
        perSec: peers[name]!.perSec,
      },
    ]),
  );
}

/** The workers section's runs/s by worker processes and its second-machine calculation at the most processes. */
function workersFigures(w: Section | undefined): Figures['workers'] {
  if (!w) return undefined;
  const levels = (w.levels as Section[]).map((l) => ({ processes: l.workerProcesses, perSec: l.perSec }));
  const most = levels[levels.length - 1]?.processes;
  const calc = most === undefined ? undefined : w.byCalculation.workersOnSecondMachine[String(most)];
  return {
    levels,
    cores: w.cores,
    ...(calc
      ? {
          secondMachine: {
            processes: most!,
            cores: w.byCalculation.secondMachineCores,
            runsPerSec: calc.runsPerSec,
            limitedBy: calc.limitedBy,
          },
        }
      : {}),
  };
}

/** The fairness section's idle and loaded p50 of tenant B. */
function fairnessFigures(f: Section | undefined): Figures['fairness'] {
  if (!f) return undefined;
  return {
    idleP50: f.tenantBIdle.p50,
    loadedP50: f.tenantBLoaded.n > 0 ? f.tenantBLoaded.p50 : null,
    queued: f.tenantA.queued,
  };
}

/** Issue 9's targets from this run's figures, printed as a table, plus the per-run counts and the scale figures. */
export function summary(r: Record<string, unknown>, e: BenchEnv): Record<string, unknown> {
  const measured = (name: string) => (r[name] && !(r[name] as Section).error ? (r[name] as Section) : undefined);
  const runs = measured('runs');
  const scale = measured('scale');
  const rss = measured('rss');
  const at32 = (scale?.levels as Section[] | undefined)?.find((l) => l.inFlight === 32);
  const figures: Figures = {
    layout: e.split,
    sustained: runs
      ? {
          awpPerSec: runs.awp3StepRun.perSec,
          barePerSec: runs.bareBullmq3StepFlow.perSec,
          inFlight: runs.awp3StepRun.inFlight,
        }
      : at32
        ? { awpPerSec: at32.awp.perSec, barePerSec: at32.bareBullmq.perSec, inFlight: 32 }
        : undefined,
    latency: runs ? { awpP50: runs.awp3StepRun.latency.p50, bareP50: runs.bareBullmq3StepFlow.latency.p50 } : undefined,
    identicalWork: runs?.awpIdenticalWorkRun
      ? {
          awpP50: runs.awpIdenticalWorkRun.latency.p50,
          awpPerSec: runs.awpIdenticalWorkRun.perSec,
          stepHashes: runs.awpIdenticalWorkRun.stepHashes,
        }
      : undefined,
    async: measured('async')
      ? {
          awpPerSec: measured('async')!.awpAsyncSubmissions.perSec,
          barePerSec: measured('async')!.bareKoaAjvPgInsertQueueAdd.perSec,
        }
      : undefined,
    healthz: measured('healthz')
      ? { awpPerSec: measured('healthz')!.awpHealthz.perSec, barePerSec: measured('healthz')!.bareKoaHello.perSec }
      : undefined,
    idleRssMb: ownProcesses(e.idleRssMb),
    bareIdleRssMb: measured('healthz')?.bareKoaHelloIdleRssMb,
    peers: peersVersus(r.peers as Record<string, Section> | undefined),
    rssAfterRuns:
      rss && Object.keys(ownProcesses(rss.lastMb)).length > 0
        ? {
            runs: rss.runs,
            lastMb: ownProcesses(rss.lastMb),
            trendsUp: ownProcesses(
              Object.fromEntries(Object.entries(rss.trend as Section).map(([k, t]) => [k, t.trendsUp])),
            ),
          }
        : undefined,
    workers: workersFigures(measured('workers')),
    fairness: fairnessFigures(measured('fairness')),
  };
  const targets = targetRows(figures);
  const lines = [`\nbench summary (${os.cpus().length} cores, ${r.at}, BENCH_SPLIT=${e.split}):`, formatTable(targets)];
  const counts = measured('counts');
  let perRun: Record<string, unknown> | undefined;
  if (counts) {
    const pg = counts.perRun.postgres;
    const rd = counts.perRun.redis;
    perRun = {
      postgresStatements: pg.statements,
      postgresTransactions: pg.transactions,
      postgresRowsWritten: pg.rowsWritten.total,
      postgresTableBytes: pg.tableBytes,
      postgresWalBytes: pg.walBytes,
      redisCommands: rd.commands,
      redisClientCommands: rd.clientCommands,
      redisUsedMemoryBytes: rd.usedMemoryBytes,
      redisKeys: rd.keys,
      bareFlowRedisCommands: counts.bareBullmq3StepFlowPerFlow.redis.commands,
      bareFlowRedisClientCommands: counts.bareBullmq3StepFlowPerFlow.redis.clientCommands,
    };
    lines.push(
      `\nper 3-step run (${counts.runs} runs): Postgres ${pg.statements} statements, ${pg.transactions} ` +
        `transactions, ${pg.rowsWritten.total} rows written, ${pg.tableBytes} B tables, ${pg.walBytes} B WAL; ` +
        `Redis ${rd.commands} commands (${rd.clientCommands} sent by clients), ${rd.usedMemoryBytes} B ` +
        `memory, ${rd.keys} keys; bare flow: ${perRun.bareFlowRedisCommands} Redis commands ` +
        `(${perRun.bareFlowRedisClientCommands} sent)`,
    );
  }
  const levels = (scale?.levels as Section[] | undefined)?.map((l) => ({
    inFlight: l.inFlight,
    awpPerSec: l.awp.perSec,
    awpP50: l.awp.latency.p50,
    barePerSec: l.bareBullmq.perSec,
    ratio: l.throughputRatio,
  }));
  if (levels)
    lines.push(
      `\nruns/s by in flight: ` +
        `${levels.map((l) => `${l.inFlight}: ${l.awpPerSec} (bare ${l.barePerSec}, ${l.ratio}×)`).join('; ')}`,
    );
  const calc = measured('workers')?.byCalculation as Section | undefined;
  const most = calc && String(Math.max(...Object.keys(calc.workersOnSecondMachine as Section).map(Number)));
  if (calc && most)
    lines.push(
      `worker processes by calculation (${most} workers), this machine: ${calc.thisMachine[most].calculation}`,
      `on a second ${calc.secondMachineCores}-core machine: ${calc.workersOnSecondMachine[most].calculation}`,
    );
  const stored = measured('stored');
  if (stored)
    lines.push(
      `p50 with ${stored.after.runsStored} runs stored: ${stored.after.latency.p50} ms (with ` +
        `${stored.before.runsStored}: ${stored.before.latency.p50} ms, ` +
        `${stored.p50Ratio}×${stored.flat ? ', flat' : ', NOT flat'})`,
    );
  if (rss)
    lines.push(
      `RSS series (runs:MB): ${Object.entries(rss.seriesMb as Record<string, string>)
        .map(([k, s]) => `${k} ${s}`)
        .join('; ')}`,
    );
  process.stderr.write(`${lines.join('\n')}\n`);
  return {
    targets,
    ...(perRun ? { perRun } : {}),
    ...(levels ? { scale: levels } : {}),
    ...(stored
      ? {
          storedP50: {
            before: stored.before.latency.p50,
            after: stored.after.latency.p50,
            runsStored: stored.after.runsStored,
            ratio: stored.p50Ratio,
          },
        }
      : {}),
  };
}
