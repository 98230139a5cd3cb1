import assert from 'node:assert/strict';
import { depthLimits, QueueDepths } from '../../shared/queue-depth.js';
import { loadConfig } from '../../shared/config.js';

/**
 * The queue depth the submit path reads (shared/queue-depth.ts), on queue handles whose counts the test answers: how
 * often Redis is asked, and what a caller gets when it does not answer. Ages are given as `now`, never waited for.
 */
describe('queue depth: counted now and then, shared, and failing open', () => {
  /** Two shards whose counts are answered by the test, one call at a time. */
  function shards() {
    const calls: Array<{ resolve: (n: number) => void; reject: (e: Error) => void }> = [];
    const queue = {
      getJobCountByTypes: () => new Promise<number>((resolve, reject) => calls.push({ resolve, reject })),
    };
    return { calls, handles: () => [queue, queue] };
  }
  const answer = async (calls: ReturnType<typeof shards>['calls'], n: number) => {
    await new Promise((r) => setImmediate(r));
    for (const c of calls.splice(0)) c.resolve(n);
  };

  it('sums the shards; callers inside one interval share one count, and a fresh count is not asked again', async () => {
    const { calls, handles } = shards();
    const depths = new QueueDepths(handles, 60_000);
    const t0 = Date.now();
    const waiting = Array.from({ length: 50 }, () => depths.waiting('hunt', 1000, t0));
    await answer(calls, 3);
    assert.deepEqual(new Set(await Promise.all(waiting)), new Set([6]));
    assert.equal(depths.refreshes, 1, 'fifty callers, one count');
    assert.equal(await depths.waiting('hunt', 1000, t0 + 500), 6);
    depths.added('hunt');
    assert.equal(await depths.waiting('hunt', 1000, t0 + 900), 7, 'a run this process enqueued is counted');
    assert.equal(depths.refreshes, 1);
  });

  it('a count a little past its age answers at once while it is counted again; an old one waits', async () => {
    const { calls, handles } = shards();
    const depths = new QueueDepths(handles, 60_000);
    const first = depths.waiting('pay', 1000);
    await answer(calls, 2);
    assert.equal(await first, 4);
    const t = Date.now();
    assert.equal(await depths.waiting('pay', 1000, t + 1500), 4, 'answered from the count, not waiting');
    assert.equal(depths.refreshes, 2, 'and counted again behind it');
    await answer(calls, 5);
    await new Promise((r) => setImmediate(r));
    const old = depths.waiting('pay', 1000, t + 60_000);
    await answer(calls, 1);
    assert.equal(await old, 2);
    assert.equal(depths.refreshes, 3);
  });

  it('a count Redis refuses or does not give answers the last one known (0 before any): it fails open', async () => {
    const { calls, handles } = shards();
    const depths = new QueueDepths(handles, 10);
    const failing = depths.waiting('resolve', 0);
    await new Promise((r) => setImmediate(r));
    for (const c of calls.splice(0)) c.reject(new Error('Connection is closed.'));
    assert.equal(await failing, 0);
    const counted = depths.waiting('resolve', 0);
    await answer(calls, 4);
    assert.equal(await counted, 8);
    // Redis away: the count never answers; the caller goes on with the last one after `waitMs`.
    assert.equal(await depths.waiting('resolve', 0, Date.now() + 10_000), 8);
  });

  it('QUEUE_DEPTH_MAX_BY_DOMAIN names domains once each; a typo stops the process at start', () => {
    assert.deepEqual(
      [...depthLimits(' hunt = 2000, pay=0 ')],
      [
        ['hunt', 2000],
        ['pay', 0],
      ],
    );
    assert.deepEqual([...depthLimits(undefined)], []);
    assert.throws(() => loadConfig({ QUEUE_DEPTH_MAX_BY_DOMAIN: 'hnut=5' }), /hnut, which is not a domain/);
    assert.throws(() => loadConfig({ QUEUE_DEPTH_MAX_BY_DOMAIN: 'pay=1,pay=2' }), /names pay twice/);
    assert.throws(() => loadConfig({ QUEUE_DEPTH_MAX_BY_DOMAIN: 'pay:5' }), /QUEUE_DEPTH_MAX_BY_DOMAIN/);
  });
});
