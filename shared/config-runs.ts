// Runs and workers (step timing, job retries, worker queues, shutdown): config schema properties.
import { Type } from '@sinclair/typebox';

export const runConfig = {
  RUN_SYNC_WAIT_MS: Type.Integer({
    minimum: 0,
    default: 25_000,
    description: 'How long POST /v1/orchestrator/run waits for a run to rest before answering 202',
  }),
  ACCOUNT_RUNS_IN_FLIGHT_BUILDER: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 4,
    description:
      'Runs of one builder-plan account queued or running at once; the rest are held (queued, with a position) ' +
      'and start in submission order as its runs come to rest',
  }),
  ACCOUNT_RUNS_IN_FLIGHT_TEAM: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 16,
    description:
      'Runs of one team-plan account queued or running at once; keep it well under the worker slots ' +
      '(WORKER_CONCURRENCY × worker processes) so other accounts find free workers',
  }),
  ACCOUNT_RUNS_IN_FLIGHT_CONTENDED: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 2,
    description:
      'Places an account that holds a backlog refills up to while another account has runs in flight: a burst ' +
      "yields the rest of its plan's places to the others, and takes them back when it is alone",
  }),
  ACCOUNT_RUNS_HELD_MAX: Type.Integer({
    minimum: 0,
    default: 10_000,
    description: 'Runs one account may have held beyond its runs in flight; one more is refused 429 with Retry-After',
  }),
  QUEUE_DEPTH_MAX: Type.Integer({
    minimum: 0,
    default: 10_000,
    description:
      'Jobs one domain queue may have waiting (waiting, prioritized, delayed; over all its shards); past it a new ' +
      'run whose route names the domain is refused 503 with Retry-After. 0: no limit',
  }),
  QUEUE_DEPTH_MAX_BY_DOMAIN: Type.Optional(
    Type.String({
      pattern: '^\\s*[a-z]+\\s*=\\s*\\d+\\s*(,\\s*[a-z]+\\s*=\\s*\\d+\\s*)*$',
      description: 'Per-domain exceptions to QUEUE_DEPTH_MAX, such as `hunt=2000,pay=500` (0: no limit)',
    }),
  ),
  QUEUE_DEPTH_CHECK_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 1000,
    description:
      'How old a queue depth the submit path may use before it counts again (one Redis call per domain and ' +
      'process per interval, shared by the submissions in it)',
  }),
  QUEUE_DEPTH_RETRY_AFTER_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 10,
    description: 'Retry-After of a 503 for a queue past its depth; up to half as much again is added at random',
  }),
  STEP_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 120_000, description: 'Upper bound on one domain step' }),
  JOB_RETRY_BASE_MS: Type.Integer({
    minimum: 1,
    default: 500,
    description:
      'First retry delay of step and finalize jobs; it doubles over 10 attempts (500: about 4 min), riding ' +
      'out a Postgres or Redis restart',
  }),
  PROGRESS_QUIET_MS: Type.Integer({
    minimum: 100,
    default: 10_000,
    description: 'A step quiet this long gets a humanized progress event',
  }),
  WORKER_QUEUES: Type.Optional(
    Type.String({ description: 'Comma-separated domain queues this worker runs (default: all)' }),
  ),
  WORKER_LOCK_MS: Type.Integer({
    minimum: 500,
    default: 30_000,
    description: "BullMQ job lock; a crashed worker's job is retried after about this long",
  }),
  WORKER_CONCURRENCY: Type.Integer({
    minimum: 1,
    default: 8,
    description: 'Concurrent jobs per queue in a worker process',
  }),
  SHUTDOWN_GRACE_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 7000,
    description:
      'How long SIGTERM lets in-flight requests and jobs finish before connections are force-closed; the ' +
      'process exits at most 2 s later',
  }),
};
