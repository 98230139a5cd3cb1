import assert from 'node:assert/strict';
import { sweepUnfinalizedRuns } from '../../jobs/orchestrator/unfinalized-runs.js';
import { harness } from '../support/harness.js';
import { pollUntilRest } from '../support/runs.js';

/**
 * A run canceled in flight is finalized by its own step job when the cancel reaches it; when Redis lost that job
 * (the soak saw it once, around a Redis restart), nothing else would write its `final`. The clock's
 * `runs.unfinalized` sweep does. The lost finalizer is made here by removing a run's `final` after the fact.
 */
describe('runs that ended without their final state', function () {
  this.timeout(30_000);

  const finals = async (runId: string) =>
    harness.deps.db('run_events').where({ run_id: runId, type: 'final' }).select('data');

  it('a canceled run with no final gets one from the sweep, once, and a run at rest is left alone', async () => {
    const { token } = await harness.account();
    const submit = async () => {
      const res = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        headers: { prefer: 'respond-async' },
        body: { request: 'bench', domainRoute: ['benchmark'], metadata: { hashes: 1 } },
      });
      assert.equal(res.status, 202, res.text);
      return (await pollUntilRest(token, res.body.runId)).runId as string;
    };
    const lost = await submit();
    const untouched = await submit();
    // As if it had been canceled in flight and its job lost before the cancel reached it: no final, ended 2 min ago.
    await harness.deps.db('run_events').where({ run_id: lost, type: 'final' }).delete();
    await harness.deps
      .db('runs')
      .where({ id: lost })
      .update({ status: 'canceled', finished_at: harness.deps.db.raw(`now() - interval '2 minutes'`) });
    const before = await finals(untouched);

    const first = await sweepUnfinalizedRuns(harness.deps);
    assert.ok(first.finalized >= 1, JSON.stringify(first));
    const written = await finals(lost);
    assert.equal(written.length, 1);
    assert.equal(written[0].data.result.status, 'canceled');
    await sweepUnfinalizedRuns(harness.deps);
    assert.equal((await finals(lost)).length, 1, 'a second sweep writes no second final');
    assert.deepEqual(await finals(untouched), before);
  });
});
