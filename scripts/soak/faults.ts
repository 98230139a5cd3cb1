import type { OutageWindow, PlannedFault } from './logic.js';
import type { ProcessSet } from './processes.js';
import type { Receiver } from './receiver.js';
import type { SoakServices } from './services.js';

/** A fault as it happened: when (seconds since the soak started), what, to whom, and how long it took to mend. */
export interface FaultRecord {
  at: number;
  kind: PlannedFault['kind'];
  target: string;
  mendedAt?: number;
  error?: string;
}

/**
 * Runs the fault plan against the processes, Redis, Postgres and the
 * receiver, each fault at its time after `startedAt` (soak seconds). Redis
 * and Postgres outages are recorded as windows (from the stop until the
 * restart answered), the 5xx check's only excuse for a 503.
 */
export async function runFaults(
  plan: PlannedFault[],
  deps: { procs: ProcessSet; services: SoakServices; receiver: Receiver; now: () => number; startedAt: number },
  log: (msg: string) => void,
): Promise<{ faults: FaultRecord[]; windows: OutageWindow[] }> {
  const faults: FaultRecord[] = [];
  const windows: OutageWindow[] = [];
  const pending: Array<Promise<void>> = [];
  const pickOf = (role: string) => {
    // One that is up and serving: killing a process still starting again would only lengthen the earlier fault.
    const all = [...deps.procs.procs.values()].filter((p) => p.role === role);
    const up = all.filter((p) => p.ready && !p.expectDown);
    const names = (up.length ? up : all).map((p) => p.name);
    return names[Math.floor(Math.random() * names.length)]!;
  };
  for (const f of plan) {
    const wait = (deps.startedAt + f.at - deps.now()) * 1000;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const target =
      f.kind === 'killWeb'
        ? pickOf('web')
        : f.kind === 'killWorker'
          ? pickOf('worker')
          : { redisRestart: 'redis', postgresRestart: 'postgres', receiverOutage: 'receiver' }[f.kind];
    const record: FaultRecord = { at: deps.now(), kind: f.kind, target };
    faults.push(record);
    log(`fault: ${f.kind} ${target} for ${f.forS} s`);
    const act =
      f.kind === 'killWeb' || f.kind === 'killWorker'
        ? deps.procs.kill(target)
        : f.kind === 'redisRestart'
          ? deps.services.restartRedis(f.forS * 1000)
          : f.kind === 'postgresRestart'
            ? deps.services.restartPostgres(f.forS * 1000)
            : deps.receiver.outage(f.forS * 1000);
    // Faults overlap freely (a kill during an outage): each is awaited on its own.
    pending.push(
      act.then(
        () => {
          record.mendedAt = deps.now();
          if (f.kind === 'redisRestart' || f.kind === 'postgresRestart')
            windows.push({ what: target, from: record.at, to: record.mendedAt });
        },
        (err: Error) => {
          record.error = err.message;
          log(`fault ${f.kind} failed: ${err.message}`);
        },
      ),
    );
  }
  await Promise.all(pending);
  return { faults, windows };
}
