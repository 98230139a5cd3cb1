import { Worker, type ConnectionOptions } from 'bullmq';
import { MODULES } from '../jobs/modules.js';
import { useModules } from '../jobs/module-registry.js';
import { hasProcessor, processorOf, QUEUE_NAMES, type Processor } from '../jobs/registry.js';
import { DOMAIN_NAMES } from '../shared/domain-names.js';
import {
  BRIDGE_ACTIONS_QUEUE,
  DELIVERY_CI_QUEUE,
  KUBERNETES_ROLLOUTS_QUEUE,
  PAY_PROVIDER_QUEUE,
  PORTAL_ACTIONS_QUEUE,
} from '../shared/queues.js';
import type { Deps } from '../shared/deps.js';
import { copiesOf, endClients } from '../shared/redis/connection.js';
import { isMain, runProcess, whenAborted, type Stoppable } from '../shared/lifecycle.js';
import { jobDuration } from '../jobs/metrics.js';
import { markServed } from '../jobs/orchestrator/index.js';
import { serveWorkMetrics } from './metrics-server.js';
import { contextOf, inSpan, SpanKind } from '../shared/telemetry/spans.js';

/**
 * Queues this process serves: `WORKER_QUEUES` (comma-separated) or every domain queue plus orchestration, bridge
 * actions, portal actions, pay's provider calls, kubernetes rollout checks and delivery's CI follow.
 */
export function selectedQueues(deps: Deps): string[] {
  const wanted = deps.config.WORKER_QUEUES?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!wanted)
    return [
      ...DOMAIN_NAMES,
      'orchestrator',
      BRIDGE_ACTIONS_QUEUE,
      PORTAL_ACTIONS_QUEUE,
      PAY_PROVIDER_QUEUE,
      KUBERNETES_ROLLOUTS_QUEUE,
      DELIVERY_CI_QUEUE,
    ];
  const unknown = wanted.filter((w) => !QUEUE_NAMES.includes(w));
  if (unknown.length > 0) throw new Error(`WORKER_QUEUES names unknown queues: ${unknown.join(', ')}`);
  return wanted;
}

/**
 * Starts one BullMQ worker per queue that has a processor (a domain whose
 * module is not built yet gets none), on each queue shard the queue exists
 * on (shared/queues.ts: a domain's queue on every shard). They stop as one
 * part, closing in parallel: closed one after another, the later ones would
 * keep taking new jobs while the earlier ones drain.
 */
export function startWorkers(deps: Deps, queues: string[]): Stoppable[] {
  useModules(MODULES);
  const workers: Array<{ name: string; worker: Worker }> = [];
  const before = new Set(copiesOf(deps.redis));
  for (const name of queues) {
    if (!hasProcessor(name)) continue;
    const processor = processorOf(name)!;
    for (const shard of deps.queues.shardsOf(name))
      workers.push({ name, worker: startWorker(deps, name, deps.queues.prefixes[shard]!, processor) });
  }
  if (workers.length === 0) return [];
  // A step job runs the next step of its segment itself when that domain is served here
  // (jobs/orchestrator/step-job.ts).
  const forget = markServed(
    deps.config.QUEUE_PREFIX,
    workers.map((w) => w.name),
  );
  // The connections BullMQ made for these workers (a blocking one each), which shutdown may have to end itself (see
  // endClients).
  const own = copiesOf(deps.redis).filter((c) => !before.has(c));
  return [
    {
      name: `workers:${workers.map((w) => w.name).join(',')}`,
      stop: async (graceOver) => {
        forget();
        endClients(own, 'notReady'); // one still waiting for Redis would hold its worker's close
        const over = graceOver && whenAborted(graceOver).then(() => endClients(own, 'all'));
        await Promise.all(
          workers.map(({ name, worker }) =>
            closeWorker(worker, over, () => deps.log.warn({ queue: name }, 'force-closing worker')),
          ),
        );
      },
    },
  ];
}

/**
 * One BullMQ worker on queue `name` under `prefix`, timing each job, each in a consumer span: the child of the span
 * that enqueued it when its data carries a `traceparent` (a run's steps), else the root of a trace of its own (a
 * sweep, a webhook dispatch).
 */
function startWorker(deps: Deps, name: string, prefix: string, processor: Processor): Worker {
  const worker = new Worker(
    name,
    (job) =>
      inSpan(
        `process ${name}`,
        {
          kind: SpanKind.CONSUMER,
          parent: contextOf((job.data as { traceparent?: unknown } | null)?.traceparent),
          attributes: {
            'messaging.system': 'bullmq',
            'messaging.operation.type': 'process',
            'messaging.destination.name': name,
            'messaging.message.id': String(job.id),
            'awp.job.name': job.name,
            'awp.job.attempt': job.attemptsMade + 1,
          },
        },
        async () => {
          const timer = jobDuration.startTimer({ queue: name });
          try {
            const result = await processor(job, deps);
            timer({ result: 'completed' });
            return result;
          } catch (err) {
            timer({ result: 'failed' });
            throw err;
          }
        },
      ),
    {
      connection: deps.redis as unknown as ConnectionOptions,
      prefix,
      concurrency: deps.config.WORKER_CONCURRENCY,
      lockDuration: deps.config.WORKER_LOCK_MS,
      stalledInterval: deps.config.WORKER_LOCK_MS,
    },
  );
  worker.on('failed', (job, err) => deps.log.warn({ queue: name, jobId: job?.id, err: err.message }, 'job failed'));
  worker.on('error', (err) => deps.log.error({ queue: name, err: err.message }, 'worker error'));
  return worker;
}

/**
 * Closes a worker, letting its in-flight jobs finish. Once `graceOver` aborts,
 * its Redis connections are dropped: commands stuck on an unresponsive Redis
 * (a job's completion, a lock renewal) then fail and the close can finish;
 * the unfinished jobs' locks expire and another worker retries them. A job
 * stuck outside Redis still holds the close; the process deadline ends that.
 */
export async function closeWorker(
  worker: Worker,
  graceOver: Promise<void> | undefined,
  onForce: () => void = () => undefined,
): Promise<void> {
  const closed = worker.close();
  if (!graceOver) return closed;
  if ((await Promise.race([closed, graceOver.then(() => 'graceOver' as const)])) !== 'graceOver') return;
  onForce();
  await worker.disconnect().catch(() => undefined);
  await closed;
}

export function startDomainWorkers(deps: Deps): Stoppable[] {
  const queues = selectedQueues(deps);
  const parts = startWorkers(deps, queues);
  deps.log.info({ queues: queues.filter(hasProcessor) }, 'domain workers started');
  return parts;
}

if (isMain(import.meta.url))
  runProcess('worker', async (deps) => [...startDomainWorkers(deps), ...(await serveWorkMetrics(deps, 'worker'))]);
