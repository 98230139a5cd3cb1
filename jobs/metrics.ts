import { Counter, Histogram, Registry } from 'prom-client';

/**
 * What the work processes count, in one process-wide registry: the web
 * process's /metrics merges it (so a single `npm start` process shows it
 * all), and a worker, delivery or clock process serves it on METRICS_PORT
 * (workers/metrics-server.ts), one scrape target per process as Prometheus expects.
 */
export const WORK_METRICS = new Registry();

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** Runs that came to an end, by outcome (succeeded, failed, canceled) and by each domain on their route. */
export const runsFinished = new Counter({
  name: 'awp_runs_finished_total',
  help: 'Runs that ended, by outcome and by each domain on their route',
  labelNames: ['outcome', 'domain'] as const,
  registers: [WORK_METRICS],
});

/** One domain step's run time, by domain and how it ended (completed, suspended, failed, canceled, skipped). */
export const stepDuration = new Histogram({
  name: 'awp_step_duration_seconds',
  help: 'Domain step duration by domain and result',
  labelNames: ['domain', 'result'] as const,
  buckets: DURATION_BUCKETS,
  registers: [WORK_METRICS],
});

/** BullMQ job run time per queue, from the job's own processedOn/finishedOn. */
export const jobDuration = new Histogram({
  name: 'awp_job_duration_seconds',
  help: 'BullMQ job duration per queue and result',
  labelNames: ['queue', 'result'] as const,
  buckets: DURATION_BUCKETS,
  registers: [WORK_METRICS],
});

/** Webhook delivery attempts by their verdict (completed, retry, disable, dropped, paused). */
export const webhookDeliveries = new Counter({
  name: 'awp_webhook_deliveries_total',
  help: 'Webhook delivery attempts by verdict',
  labelNames: ['verdict'] as const,
  registers: [WORK_METRICS],
});
