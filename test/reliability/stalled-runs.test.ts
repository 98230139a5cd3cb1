import assert from 'node:assert/strict';
import { UnrecoverableError, Worker, type ConnectionOptions } from 'bullmq';
import { sweepStuckRuns, MAX_DRIVES } from '../../jobs/orchestrator/stuck-runs.js';
import { submitRun } from '../../jobs/orchestrator/submit.js';
import { createDeps, type Deps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';
import { until } from '../support/receiver.js';

describe('stalled runs: the clock re-drives them under fresh job ids, then fails them', function () {
  this.timeout(60_000);
  let accountId: string;
  let tokenId: string;
  const principal = () => ({ accountId, tokenId, scopes: [], plan: 'team' as const, activated: true });
  const age = (runId: string) =>
    harness.deps
      .db('runs')
      .where({ id: runId })
      .update({ updated_at: harness.deps.db.raw(`now() - interval '10 minutes'`) });
  const otherPrefix = (name: string): Deps =>
    createDeps(harness.configWith({ QUEUE_PREFIX: `{awp-${name}-${process.pid}}` }), createLogger('silent'));

  before(async () => {
    ({ accountId, tokenId } = await harness.account());
    await seedCatalog(accountId);
  });

  it('a run whose flow is gone is re-driven and completes, and the drive is on record', async () => {
    const lost = otherPrefix('lost'); // its flow goes where no worker looks
    try {
      const run = await submitRun(lost, principal(), {
        request: 'find the cheapest espresso machine',
        domainRoute: ['hunt', 'resolve'],
      });
      await age(run.id);
      const swept = await sweepStuckRuns(harness.deps);
      assert.ok(swept.requeued >= 1);
      const done = await until(
        () => harness.deps.db('runs').where({ id: run.id }).first(),
        (r) => r.status === 'ready',
        20_000,
      );
      assert.equal(done.drives, 1);
      const traces = await harness.deps.db('run_events').where({ run_id: run.id, type: 'trace' }).select('data');
      assert.ok(traces.some((t) => t.data.event === 'run.redriven' && t.data.drive === 1));
      assert.equal((await harness.deps.db('run_events').where({ run_id: run.id, type: 'final' })).length, 1);
    } finally {
      await lost.close();
    }
  });

  it(`after ${MAX_DRIVES} drives the run fails with a stuckReason and is finalized once`, async () => {
    const lost = otherPrefix('lost2');
    try {
      const run = await submitRun(lost, principal(), {
        request: 'find the cheapest espresso machine',
        domainRoute: ['hunt'],
      });
      await harness.deps.db('runs').where({ id: run.id }).update({ drives: MAX_DRIVES });
      await age(run.id);
      await sweepStuckRuns(harness.deps);
      await until(
        () => harness.deps.db('run_events').where({ run_id: run.id, type: 'final' }).first(),
        (e) => Boolean(e),
        20_000,
      );
      const done = await harness.deps.db('runs').where({ id: run.id }).first();
      assert.equal(done.status, 'failed');
      assert.match(done.stuck_reason, /re-drives/);
      assert.equal((await harness.deps.db('run_events').where({ run_id: run.id, type: 'final' })).length, 1);
    } finally {
      await lost.close();
    }
  });

  it(
    'a step whose job fails for good (a worker gave up on it) is re-driven by the sweep, then fails the run, ' +
      'finalized once',
    async () => {
      const deps = otherPrefix('gaveup');
      // A worker that gives up on every hunt job, as one does when an outage outlasts its retries.
      const quitter = new Worker(
        'hunt',
        async () => {
          throw new UnrecoverableError('gave up');
        },
        { connection: deps.redis as unknown as ConnectionOptions, prefix: deps.config.QUEUE_PREFIX },
      );
      const workers = startWorkers(deps, ['resolve', 'orchestrator']);
      try {
        const run = await submitRun(deps, principal(), {
          request: 'find the cheapest espresso machine',
          domainRoute: ['hunt', 'resolve'],
        });
        for (let drive = 1; drive <= MAX_DRIVES + 1; drive++) {
          await until(
            async () => (await deps.queues.queue('hunt').getFailed()).filter((j) => j.data.runId === run.id).length,
            (failed) => failed >= Math.min(drive, MAX_DRIVES + 1) || drive > MAX_DRIVES,
            10_000,
          );
          await age(run.id);
          await sweepStuckRuns(deps);
        }
        await until(
          () => harness.deps.db('run_events').where({ run_id: run.id, type: 'final' }).first(),
          (e) => Boolean(e),
          20_000,
        );
        const done = await harness.deps.db('runs').where({ id: run.id }).first();
        assert.equal(done.status, 'failed');
        assert.match(done.stuck_reason, /re-drives/);
        assert.equal((await harness.deps.db('run_events').where({ run_id: run.id, type: 'final' })).length, 1);
      } finally {
        await quitter.close();
        for (const w of workers) await w.stop();
        await deps.close();
      }
    },
  );
});
