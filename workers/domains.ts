import { Worker, type ConnectionOptions } from 'bullmq';
import { DOMAIN_NAMES } from '../jobs/domains.js';
import { hasProcessor, PROCESSORS, QUEUE_NAMES } from '../jobs/registry.js';
import type { Deps } from '../shared/deps.js';
import { isMain, runProcess, type Stoppable } from './lifecycle.js';

/** Queues this process serves: `WORKER_QUEUES` (comma-separated) or every domain queue plus orchestration. */
export function selectedQueues(deps: Deps): string[] {
  const wanted = deps.config.WORKER_QUEUES?.split(',').map((s) => s.trim()).filter(Boolean);
  if (!wanted) return [...DOMAIN_NAMES, 'orchestrator'];
  const unknown = wanted.filter((w) => !QUEUE_NAMES.includes(w));
  if (unknown.length > 0) throw new Error(`WORKER_QUEUES names unknown queues: ${unknown.join(', ')}`);
  return wanted;
}

/** Starts one BullMQ worker per queue that has a processor; a domain whose module is not built yet gets none. */
export function startWorkers(deps: Deps, queues: string[]): Stoppable[] {
  const started: Stoppable[] = [];
  for (const name of queues) {
    const processor = PROCESSORS[name];
    if (!processor || !hasProcessor(name)) continue;
    const worker = new Worker(name, (job) => processor(job, deps), {
      connection: deps.redis as unknown as ConnectionOptions,
      prefix: deps.config.QUEUE_PREFIX,
      concurrency: deps.config.WORKER_CONCURRENCY,
      lockDuration: deps.config.WORKER_LOCK_MS,
      stalledInterval: deps.config.WORKER_LOCK_MS,
    });
    worker.on('failed', (job, err) => deps.log.warn({ queue: name, jobId: job?.id, err: err.message }, 'job failed'));
    worker.on('error', (err) => deps.log.error({ queue: name, err: err.message }, 'worker error'));
    started.push({ name: `worker:${name}`, stop: () => worker.close() });
  }
  return started;
}

export function startDomainWorkers(deps: Deps): Stoppable[] {
  const queues = selectedQueues(deps);
  const parts = startWorkers(deps, queues);
  deps.log.info({ queues: parts.map((p) => p.name) }, 'domain workers started');
  return parts;
}

if (isMain(import.meta.url)) runProcess('worker', async (deps) => startDomainWorkers(deps));
