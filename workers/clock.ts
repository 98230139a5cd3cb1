import cron from 'node-cron';
import { PASS_SETTLE_MS, requestPass } from '../jobs/clock/job.js';
import { sweeps } from '../jobs/clock/sweeps.js';
import { useModules } from '../jobs/module-registry.js';
import { MODULES } from '../jobs/modules.js';
import { startScheduleTicker } from '../jobs/schedules/ticker.js';
import type { Deps } from '../shared/deps.js';
import { Lease } from '../shared/redis/lease.js';
import { onReconnect } from '../shared/redis/connection.js';
import { isMain, runProcess, type Stoppable } from '../shared/lifecycle.js';
import { startWorkers } from './domains.js';
import { serveWorkMetrics } from './metrics-server.js';

const LEADER_TTL_MS = 30_000;

/**
 * node-cron ticks behind a Redis leader lease. A tick only enqueues the
 * sweep's job with a per-minute job id, so even two leaders in a split
 * second would enqueue it once; the `clock` queue's worker does the work.
 * Schedules tick in every clock process, leader or not (jobs/schedules/ticker.ts).
 *
 * The leader also asks for the `runs.lost` pass (jobs/orchestrator/lost-runs.ts)
 * when Redis may have lost jobs: its connection came back after a loss, or
 * it became leader (at start, on taking over, or because its own lease
 * vanished, as it does when Redis comes back empty). Runs whose jobs went
 * with Redis are re-driven seconds later instead of after a minute's sweep.
 */
export function startClock(deps: Deps): Stoppable[] {
  useModules(MODULES);
  const lease = new Lease(deps.redis, `${deps.config.QUEUE_PREFIX}:clock:leader`, LEADER_TTL_MS);
  let leader = false;
  const lost = watchForLostJobs(deps, () => leader);
  const keepLease = async () => {
    try {
      if (leader && (await lease.renew())) return;
      const had = leader;
      leader = await lease.acquire();
      if (leader) lost.request(had ? 'the clock lease vanished' : 'this clock became leader');
    } catch (err) {
      leader = false;
      deps.log.warn({ err: (err as Error).message }, 'clock lease check failed');
    }
  };
  void keepLease();
  const leaseTimer = setInterval(() => void keepLease(), LEADER_TTL_MS / 3);
  const tasks = Object.entries(sweeps()).map(([name, sweep]) =>
    cron.schedule(sweep.cron, async () => {
      if (!leader) return;
      const minute = new Date().toISOString().slice(0, 16).replace(/[-:T]/g, '');
      await deps.queues
        .queue('clock')
        .add(name, {}, { jobId: `${name}.${minute}`, removeOnComplete: 100, removeOnFail: 100 })
        .catch((err: Error) => deps.log.warn({ sweep: name, err: err.message }, 'tick enqueue failed'));
    }),
  );
  return [
    ...startWorkers(deps, ['clock']),
    startScheduleTicker(deps),
    {
      name: 'clock',
      stop: async () => {
        clearInterval(leaseTimer);
        lost.stop();
        for (const t of tasks) await t.stop();
        if (leader) await lease.release().catch(() => undefined);
      },
    },
  ];
}

/**
 * Asks for the `runs.lost` pass while `isLeader()`: each time `deps.redis` is
 * ready again after losing its connection, and whenever `request` is called.
 * Requests within PASS_SETTLE_MS of one another make one pass: it runs after
 * them all.
 */
export function watchForLostJobs(deps: Deps, isLeader: () => boolean): { request(reason: string): void; stop(): void } {
  let requestedAt = 0;
  const request = (reason: string) => {
    if (Date.now() - requestedAt < PASS_SETTLE_MS) return;
    requestedAt = Date.now();
    deps.log.info({ reason }, 'asking for a pass over runs whose jobs Redis may have lost');
    requestPass(deps, 'runs.lost', reason).catch((err: Error) => {
      requestedAt = 0;
      deps.log.warn({ reason, err: err.message }, 'could not ask for the lost-runs pass');
    });
  };
  const stop = onReconnect(deps.redis, () => {
    if (isLeader()) request('redis reconnected');
  });
  return { request, stop };
}

if (isMain(import.meta.url))
  runProcess('clock', async (deps) => [...startClock(deps), ...(await serveWorkMetrics(deps, 'clock'))]);
