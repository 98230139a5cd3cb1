import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { enqueueStep, finalizeJobId } from '../../jobs/orchestrator/flow.js';
import { MAX_DRIVES, sweepStuckRuns } from '../../jobs/orchestrator/stuck-runs.js';
import { createDeps } from '../../shared/deps.js';
import { newId } from '../../shared/ids.js';
import { duplicateClient } from '../../shared/redis/connection.js';
import { createLogger } from '../../shared/log.js';
import { harness } from '../support/harness.js';

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const v = await probe();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('BullMQ job retention', function () {
  this.timeout(30_000);
  // A prefix of its own: only the workers of this test see these jobs.
  const prefix = `{awp-keep-${randomBytes(3).toString('hex')}}`;
  let deps: ReturnType<typeof createDeps>;
  const workers: Worker[] = [];
  before(() => {
    deps = createDeps(
      harness.configWith({ QUEUE_PREFIX: prefix, QUEUE_KEEP_COMPLETED_SECONDS: '600', QUEUE_KEEP_FAILED_DAYS: '2' }),
      createLogger('silent'),
    );
  });
  after(async () => {
    for (const w of workers) await w.close();
    await deps.close();
  });
  const work = (queue: string, fn: (job: Job) => Promise<unknown>) => {
    const w = new Worker(queue, fn, {
      connection: duplicateClient(deps.redis) as unknown as ConnectionOptions,
      prefix,
    });
    workers.push(w);
    return w;
  };

  it('a step job is removed from Redis in time, once failed for good or once completed', async () => {
    const runId = newId('run');
    work('alpha', async () => {
      throw new UnrecoverableError('step broke for good');
    });
    work('beta', async () => 'done');
    const alpha = { runId, segment: 0, index: 0, domain: 'alpha', first: true };
    await enqueueStep(deps, alpha);
    await enqueueStep(deps, { runId, segment: 0, index: 1, domain: 'beta' });
    const ids = { alpha: `${runId}.0.0.alpha`, beta: `${runId}.0.1.beta` };
    const expected: Record<string, string> = { alpha: 'failed', beta: 'completed' };
    for (const [queue, id] of Object.entries(ids)) {
      const job = await until(`${queue} job to finish`, async () => {
        const j = await deps.queues.queue(queue).getJob(id);
        return j && (await j.getState()) === expected[queue] ? j : null;
      });
      assert.deepEqual(
        job.opts.removeOnFail,
        { age: 2 * 86400, count: 10_000 },
        `${queue} job is removed once failed past QUEUE_KEEP_FAILED_DAYS`,
      );
      assert.deepEqual(
        job.opts.removeOnComplete,
        { age: 600, count: 5000 },
        `${queue} job is removed once completed past QUEUE_KEEP_COMPLETED_SECONDS`,
      );
    }
    await enqueueStep(deps, alpha);
    assert.equal(
      await deps.queues.queue('alpha').getJobCountByTypes('waiting'),
      0,
      'a second add under the same id is a no-op while the first is kept',
    );
  });

  it("the stuck-run sweep's jobs are removed once finished, like every other run job", async () => {
    const { accountId } = await harness.account();
    const runId = newId('run');
    await harness.deps.db('runs').insert({
      id: runId,
      account_id: accountId,
      status: 'running',
      request: 'x',
      input: '{}',
      route: ['hunt'],
      routing: '{}',
      drives: MAX_DRIVES,
      updated_at: harness.deps.db.raw(`now() - interval '1 day'`),
    });
    await harness.deps.db('run_steps').insert({
      id: `${runId}.0.0.hunt`,
      run_id: runId,
      account_id: accountId,
      segment: 0,
      idx: 0,
      domain: 'hunt',
      status: 'running',
      started_at: harness.deps.db.raw(`now() - interval '1 day'`),
      heartbeat_at: harness.deps.db.raw(`now() - interval '1 day'`),
    });
    await sweepStuckRuns(deps);
    const job = await until("the sweep's finalize job", () =>
      deps.queues.queue('orchestrator').getJob(finalizeJobId(runId, 0, MAX_DRIVES + 1)),
    );
    assert.deepEqual(job.opts.removeOnComplete, { age: 600, count: 5000 });
    assert.deepEqual(job.opts.removeOnFail, { age: 2 * 86400, count: 10_000 });
  });
});
