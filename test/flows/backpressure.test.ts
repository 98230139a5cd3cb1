import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startExtraApp } from '../support/extra-app.js';
import { harness } from '../support/harness.js';
import { pollUntilRest } from '../support/runs.js';

/**
 * A domain queue past its depth (jobs/orchestrator/backpressure.ts): a new run naming the domain is refused 503 with
 * Retry-After, naming the domain, and nothing of it is written. The depth is made by the test: jobs delayed an hour on
 * the `benchmark` queue, which no worker takes before the test removes them; `QUEUE_DEPTH_CHECK_MS: 0` counts the
 * queue on every submission, so what is refused is decided by the jobs there, never by timing.
 */
describe('backpressure: a domain queue past its depth refuses new runs 503 with Retry-After', function () {
  this.timeout(60_000);
  let app: Awaited<ReturnType<typeof startExtraApp>>;
  const parked: string[] = [];
  const benchmarkQueue = () => harness.deps.queues.queueFor('benchmark', 'run_parked');

  const submit = (token: string, route: string[], headers: Record<string, string> = {}, url = app.url) =>
    harness.call(
      'POST',
      '/v1/orchestrator/run',
      { token, headers: { prefer: 'respond-async', ...headers }, body: { request: 'measure', domainRoute: route } },
      url,
    );
  /** What a submission could have written for the account: runs, their events, outbox events, keys, usage. */
  const written = async (accountId: string) => {
    const db = harness.deps.db;
    const count = async (table: string) =>
      Number((await db(table).where({ account_id: accountId }).count({ n: '*' }).first())!.n);
    const usage = await db('usage_counters').where({ account_id: accountId }).sum({ n: 'workflow_requests' }).first();
    return {
      runs: await count('runs'),
      runEvents: await count('run_events'),
      events: await count('events'),
      idempotencyKeys: await count('idempotency_keys'),
      usage: Number(usage?.n ?? 0),
    };
  };

  before(async () => {
    app = await startExtraApp({
      QUEUE_DEPTH_MAX: '0',
      QUEUE_DEPTH_MAX_BY_DOMAIN: 'benchmark=3',
      QUEUE_DEPTH_CHECK_MS: '0',
    });
    assert.equal(
      await benchmarkQueue().getJobCountByTypes('waiting', 'prioritized', 'delayed'),
      0,
      'the benchmark queue starts empty',
    );
    for (let i = 0; i < 3; i++) {
      const id = `parked-${randomUUID()}`;
      await benchmarkQueue().add('step', { parked: true }, { jobId: id, delay: 3_600_000 });
      parked.push(id);
    }
  });

  after(async () => {
    for (const id of parked) await benchmarkQueue().remove(id);
    await app.stop();
  });

  it('refuses a run naming the deep queue: 503, Retry-After, the domain named, nothing written', async () => {
    const { accountId, token } = await harness.account({ plan: 'builder' });
    const before = await written(accountId);
    const key = `bp-${randomUUID()}`;
    const refused = await submit(token, ['resolve', 'benchmark'], { 'idempotency-key': key });
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.body.error, 'unavailable');
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(refused.body.details.reason, 'queueDepth');
    assert.equal(refused.body.details.domain, 'benchmark');
    assert.equal(refused.body.details.queueDepth, 3);
    assert.equal(refused.body.details.queueDepthLimit, 3);
    assert.equal(String(refused.body.details.retryAfterSeconds), refused.headers.get('retry-after'));
    assert.match(refused.body.message, /benchmark queue/);
    // No run, no event, no outbox row, the key not kept (a retry with it runs), the builder's quota given back.
    assert.deepEqual(await written(accountId), before);

    // A domain under its limit is not held back by another's queue.
    const other = await submit(token, ['resolve']);
    assert.equal(other.status, 202, other.text);
    await pollUntilRest(token, other.body.runId);
  });

  it('a signal whose rule meets the deep queue records its match refused, with the reason', async () => {
    const { accountId, token } = await harness.account();
    const type = `bp.${randomUUID()}`;
    const target = { request: { request: 'measure', domainRoute: ['benchmark'] } };
    const rule = await harness.call('POST', '/v1/signals/rules', {
      token,
      body: { name: 'r', signalType: type, target },
    });
    assert.equal(rule.status, 201, rule.text);
    const signal = await harness.call(
      'POST',
      '/v1/signals',
      { token, body: { type, subject: 'svc', source: 'monitor', sourceId: randomUUID() } },
      app.url,
    );
    assert.equal(signal.status, 201, signal.text);
    const [match] = signal.body.matches;
    assert.equal(match.outcome, 'refused');
    assert.match(match.reason, /benchmark queue .* at or past its limit of 3/);
    assert.equal(match.runId, null);
    assert.equal((await written(accountId)).runs, 0);
    const event = await harness.deps.db('events').where({ account_id: accountId, type: 'signal.matched' }).first();
    assert.equal(event.payload.outcome, 'refused');
  });

  it('takes the same request, under the same Idempotency-Key, once the queue is under its limit again', async () => {
    const { accountId, token } = await harness.account({ plan: 'builder' });
    const key = `bp-${randomUUID()}`;
    assert.equal((await submit(token, ['benchmark'], { 'idempotency-key': key })).status, 503);
    await benchmarkQueue().remove(parked.pop()!);
    const accepted = await submit(token, ['benchmark'], { 'idempotency-key': key });
    assert.equal(accepted.status, 202, accepted.text);
    assert.equal((await pollUntilRest(token, accepted.body.runId)).status, 'ready');
    assert.equal((await written(accountId)).usage, 1, 'counted once: the accepted run');
  });

  it('counts a queue at most once per QUEUE_DEPTH_CHECK_MS, and counts its own submissions in between', async () => {
    // An hour between counts: within this test the first count is the only one, and the runs this process enqueues
    // after it are added to it, so a burst inside one interval cannot overfill the queue.
    const cached = await startExtraApp({
      QUEUE_DEPTH_MAX: '0',
      QUEUE_DEPTH_MAX_BY_DOMAIN: 'resolve=3',
      QUEUE_DEPTH_CHECK_MS: '60000',
    });
    try {
      const { token } = await harness.account();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await submit(token, ['resolve'], {}, cached.url);
        assert.equal(res.status, 202, res.text);
        ids.push(res.body.runId);
      }
      const fourth = await submit(token, ['resolve'], {}, cached.url);
      assert.equal(fourth.status, 503, fourth.text);
      assert.equal(fourth.body.details.queueDepth, 3);
      assert.equal(cached.deps.queues.depths.refreshes, 1, 'four submissions, one count from Redis');
      for (const id of ids) await pollUntilRest(token, id);
    } finally {
      await cached.stop();
    }
  });
});
