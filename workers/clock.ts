import cron from 'node-cron';
import { sweeps } from '../jobs/clock/sweeps.js';
import { useModules } from '../jobs/module-registry.js';
import { MODULES } from '../jobs/modules.js';
import { startScheduleTicker } from '../jobs/schedules/ticker.js';
import type { Deps } from '../shared/deps.js';
import { Lease } from '../shared/redis/lease.js';
import { isMain, runProcess, type Stoppable } from '../shared/lifecycle.js';
import { startWorkers } from './domains.js';
import { serveWorkMetrics } from './metrics-server.js';

const LEADER_TTL_MS = 30_000;

/**
 * node-cron ticks behind a Redis leader lease. A tick only enqueues the
 * sweep's job with a per-minute job id, so even two leaders in a split
 * second would enqueue it once; the `clock` queue's worker does the work.
 * Schedules tick in every clock process, leader or not (jobs/schedules/ticker.ts).
 */
export function startClock(deps: Deps): Stoppable[] {
  useModules(MODULES);
  const lease = new Lease(deps.redis, `${deps.config.QUEUE_PREFIX}:clock:leader`, LEADER_TTL_MS);
  let leader = false;
  const keepLease = async () => {
    try {
      leader = leader ? await lease.renew() : await lease.acquire();
      if (!leader) leader = await lease.acquire();
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
        for (const t of tasks) await t.stop();
        if (leader) await lease.release().catch(() => undefined);
      },
    },
  ];
}

if (isMain(import.meta.url))
  runProcess('clock', async (deps) => [...startClock(deps), ...(await serveWorkMetrics(deps, 'clock'))]);
