import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sweepLostRuns } from '../../jobs/orchestrator/lost-runs.js';
import { SWEEP_PAGE, sweepStuckRuns } from '../../jobs/orchestrator/stuck-runs.js';
import { submitRun } from '../../jobs/orchestrator/submit.js';
import { createDeps, type Deps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { startRedis } from '../../scripts/local-services.js';
import { startWorkers } from '../../workers/domains.js';
import { watchForLostJobs } from '../../workers/clock.js';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';
import { until } from '../support/receiver.js';

const REQUEST = { request: 'find the cheapest espresso machine', domainRoute: ['hunt' as const, 'resolve' as const] };

/**
 * Redis coming back empty takes the jobs of every run in flight with it.
 * Recovery runs at the speed of the fault: one pass re-drives all of them
 * (page after page, not a hundred a minute), a reconnect asks for that pass
 * at once, and a run whose job survived is never driven a second time.
 */
describe('runs whose jobs Redis lost', function () {
  this.timeout(120_000);
  let dir: string;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let deps: Deps;
  let accountId: string;
  let tokenId: string;

  const submit = async (n: number) => {
    const principal = { accountId, tokenId, scopes: [], plan: 'team' as const, activated: true };
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await submitRun(deps, principal, REQUEST)).id);
    return ids;
  };
  /** Makes the runs look `seconds` quiet, as they would be after an outage that long. */
  const age = (ids: string[], seconds: number) =>
    harness.deps
      .db('runs')
      .whereIn('id', ids)
      .update({ updated_at: harness.deps.db.raw(`now() - make_interval(secs => ?)`, [seconds]) });
  const drives = async (ids: string[]) =>
    (await harness.deps.db('runs').whereIn('id', ids).select('drives')).map((r) => Number(r.drives));

  beforeEach(async () => {
    // A Redis of this test's own, so emptying it disturbs nothing else.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-lost-runs-'));
    redis = await startRedis(dir, { persist: false });
    deps = createDeps(
      harness.configWith({
        REDIS_URL: redis.url,
        QUEUE_PREFIX: `{awp-lost-${process.pid}}`,
        ACCOUNT_RUNS_IN_FLIGHT_TEAM: '1000', // every run in flight, none held for a place
      }),
      createLogger('silent'),
    );
    ({ accountId, tokenId } = await harness.account());
    await seedCatalog(accountId);
  });
  afterEach(async () => {
    await deps.close();
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`one pass re-drives every run (over ${SWEEP_PAGE}) that lost its job, and none whose job is there`, async () => {
    // No worker: the jobs wait in Redis, then Redis loses them all.
    const lost = await submit(SWEEP_PAGE + 20);
    await deps.redis.flushall();
    const kept = await submit(3); // enqueued after the loss: their jobs are in Redis
    // Quiet for 30 s: past the lost-job criterion, well short of the stuck-run sweep's minute.
    await age([...lost, ...kept], 30);

    const pass = await sweepLostRuns(deps);
    assert.ok(pass.lost >= lost.length, JSON.stringify(pass));
    assert.deepEqual(
      await drives(lost),
      lost.map(() => 1),
      'every lost run re-driven, once',
    );
    assert.deepEqual(await drives(kept), [0, 0, 0], 'a run whose job is still in Redis is not driven again');
    const traces = await harness.deps
      .db('run_events')
      .whereIn('run_id', lost)
      .where({ type: 'trace' })
      .whereRaw(`data->>'event' = 'run.redriven'`)
      .count<{ count: string }[]>('* as count');
    assert.equal(Number(traces[0]!.count), lost.length);

    // The minute's sweep too takes them all in one pass once they are stuck for it (queued over a minute).
    await deps.redis.flushall();
    await age(lost, 120);
    const swept = await sweepStuckRuns(deps);
    assert.ok(swept.requeued >= lost.length, JSON.stringify(swept));
    assert.deepEqual(
      await drives(lost),
      lost.map(() => 2),
    );
  });

  it('Redis coming back empty asks for the pass at once; the lost runs are re-driven and complete', async () => {
    const watch = watchForLostJobs(deps, () => true);
    const clock = startWorkers(deps, ['clock']);
    let domains: Array<{ stop(): Promise<void> }> = [];
    try {
      const ids = await submit(2);
      await age(ids, 30);
      await redis.stop();
      redis = await startRedis(dir, { persist: false, port: redis.port });

      // Nothing but the reconnect asks for a pass here, and the runs are far from the stuck-run sweep's minute.
      await until(
        () => drives(ids),
        (d) => d.every((n) => n === 1),
        30_000,
      );
      const passes = await until(
        () => deps.queues.queue('clock').getCompleted(),
        (done) => done.some((j) => j.name === 'runs.lost'),
      );
      const pass = passes.find((j) => j.name === 'runs.lost');
      assert.ok(pass);
      assert.equal(pass.data.reason, 'redis reconnected');
      assert.ok(pass.returnvalue.lost >= ids.length, JSON.stringify(pass.returnvalue));

      domains = startWorkers(deps, ['hunt', 'resolve', 'orchestrator']);
      const rows = await until(
        () => harness.deps.db('runs').whereIn('id', ids).select('status'),
        (r) => r.every((x) => x.status === 'ready'),
        30_000,
      );
      assert.equal(rows.length, ids.length);
      const finals = await harness.deps.db('run_events').whereIn('run_id', ids).where({ type: 'final' });
      assert.equal(finals.length, ids.length, 'each run rests once');
    } finally {
      watch.stop();
      for (const w of [...domains, ...clock]) await w.stop();
    }
  });
});
