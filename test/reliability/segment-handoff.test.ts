import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { submitRun } from '../../jobs/orchestrator/submit.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';
import { seedCatalog } from '../support/runs.js';

/**
 * A segment's steps run in one job while this process serves their domains,
 * and the run is handed to the next domain's queue where it does not
 * (WORKER_QUEUES splits domains across processes).
 */
describe('a segment runs where it lands, and is handed on where it does not', function () {
  this.timeout(60_000);
  let accountId: string;
  let tokenId: string;
  const principal = () => ({ accountId, tokenId, scopes: [], plan: 'team' as const, activated: true });
  before(async () => {
    ({ accountId, tokenId } = await harness.account());
    await seedCatalog(accountId);
  });
  const steps = (runId: string) =>
    harness.deps.db('run_steps').where({ run_id: runId }).orderBy('idx').select('domain', 'status', 'attempts');

  it('three steps served here take one job, each checkpointed once', async () => {
    const run = await submitRun(harness.deps, principal(), {
      request: 'find the cheapest espresso machine',
      domainRoute: ['hunt', 'resolve', 'resolve'],
    });
    await until(
      () => harness.deps.db('runs').where({ id: run.id }).first(),
      (r) => r.status === 'ready',
      20_000,
    );
    assert.ok(await harness.deps.queues.queue('hunt').getJob(`${run.id}.0.0.hunt`), 'the segment started as one job');
    for (const index of [1, 2])
      assert.equal(await harness.deps.queues.queue('resolve').getJob(`${run.id}.0.${index}.resolve`), undefined);
    assert.deepEqual(await steps(run.id), [
      { domain: 'hunt', status: 'completed', attempts: 1 },
      { domain: 'resolve', status: 'completed', attempts: 1 },
      { domain: 'resolve', status: 'completed', attempts: 1 },
    ]);
  });

  it("another process's domain gets the step on its own queue, and the run goes on there", async () => {
    const prefix = `{awp-handoff-${randomBytes(3).toString('hex')}}`;
    const deps = createDeps(harness.configWith({ QUEUE_PREFIX: prefix }), createLogger('silent'));
    const parts = [startWorkers(deps, ['hunt', 'orchestrator'])];
    try {
      const run = await submitRun(deps, principal(), {
        request: 'find the cheapest espresso machine',
        domainRoute: ['hunt', 'resolve'],
      });
      const handed = await until(
        () => deps.queues.queue('resolve').getJob(`${run.id}.0.1.resolve`),
        (job) => Boolean(job),
        20_000,
      );
      assert.deepEqual(handed!.data, { runId: run.id, segment: 0, index: 1, domain: 'resolve' });
      assert.equal((await harness.deps.db('runs').where({ id: run.id }).first()).status, 'running');
      parts.push(startWorkers(deps, ['resolve']));
      await until(
        () => harness.deps.db('runs').where({ id: run.id }).first(),
        (r) => r.status === 'ready',
        20_000,
      );
      assert.deepEqual(await steps(run.id), [
        { domain: 'hunt', status: 'completed', attempts: 1 },
        { domain: 'resolve', status: 'completed', attempts: 1 },
      ]);
      assert.equal((await harness.deps.db('run_events').where({ run_id: run.id, type: 'final' })).length, 1);
    } finally {
      for (const part of parts.flat()) await part.stop();
      await deps.close();
    }
  });
});
