import assert from 'node:assert/strict';
import { RESTING_STATUSES } from '../../jobs/orchestrator/run-state.js';
import { registerStepHandler } from '../../jobs/steps.js';
import { DOMAIN_NAMES } from '../../shared/domain-names.js';
import { startClusterApp, type ClusterApp } from '../support/cluster-app.js';
import { harness, type CallOptions } from '../support/harness.js';
import { startReceiver, until } from '../support/receiver.js';
import { ndjson, seedCatalog } from '../support/runs.js';

/**
 * The engine on a Redis Cluster of three masters, its step jobs spread over two hash-tagged queue shards: a key of a
 * queue on another slot than the rest would fail its script with CROSSSLOT, and pub/sub must reach subscribers on
 * whichever node they are connected to.
 */
describe('the engine on a Redis Cluster (three masters, two queue shards)', function () {
  this.timeout(60_000);
  let app: ClusterApp;
  let token: string;
  const secrets: string[] = [];
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  const call = (method: string, path: string, opts: CallOptions = {}) =>
    harness.call(method, path, { token, ...opts }, app.url);
  const submit = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call('POST', '/v1/orchestrator/run', { body, headers });
  const rest = (runId: string) =>
    until(
      async () => (await call('GET', `/v1/runs/${runId}`)).body.run,
      (run) => RESTING_STATUSES.includes(run.status) && Boolean(run.result),
      20_000,
    );

  before(async () => {
    app = await startClusterApp({ QUEUE_SHARDS: '2' });
    let accountId: string;
    ({ token, accountId } = await harness.account({}, app.deps.db));
    await seedCatalog(accountId, app.deps.db);
    rx = await startReceiver(() => secrets);
    const sub = await call('POST', '/v1/event-subscriptions', { body: { endpoint: rx.url, events: ['run.*'] } });
    assert.equal(sub.status, 201, sub.text);
    secrets.push(sub.body.secret);
  });
  after(async () => {
    await rx?.stop();
    await app?.stop();
  });

  it("keeps each shard's queues on one slot, and the shards on slots of their own", async () => {
    const slot = async (key: string) => Number(await app.deps.redis.call('CLUSTER', 'KEYSLOT', key));
    const [first, second] = app.deps.queues.prefixes;
    assert.equal(app.deps.queues.prefixes.length, 2);
    assert.equal(await slot(`${first}:hunt:wait`), await slot(`${first}:orchestrator:id`));
    assert.equal(await slot(`${second}:hunt:wait`), await slot(`${second}:resolve:meta`));
    assert.notEqual(await slot(`${first}:hunt:wait`), await slot(`${second}:hunt:wait`));
  });

  it('submit: a two-domain run runs both steps and answers ready', async () => {
    const res = await submit({
      request: 'find the cheapest espresso machine under $250',
      domainRoute: ['hunt', 'resolve'],
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'ready');
    assert.equal(res.body.results.hunt.candidates.filter((c: any) => c.eligible).length, 2);
    assert.equal(res.body.results.resolve.audited.candidates, 3);
    const run = (await call('GET', `/v1/runs/${res.body.runId}`)).body.run;
    assert.deepEqual(
      run.steps.map((s: any) => [s.domain, s.status]),
      [
        ['hunt', 'completed'],
        ['resolve', 'completed'],
      ],
    );
  });

  it('resume: a run waiting for a choice continues from it in a new segment', async () => {
    const first = await submit({ request: 'shortlist espresso machines under $250 so I can choose one' });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.status, 'NEEDS_INPUT');
    const itemId = first.body.results.hunt.choices[0].itemId;
    const resumed = await call('POST', `/v1/runs/${first.body.runId}/resume`, { body: { itemId } });
    assert.equal(resumed.status, 202, resumed.text);
    const run = await rest(first.body.runId);
    assert.equal(run.status, 'awaitingApproval', 'the buy continued into pay, which waits for a mandate');
    assert.equal(run.result.results.hunt.selected.itemId, itemId);
  });

  it('cancel: the signal reaches the running step through cluster pub/sub and the run rests canceled', async () => {
    let aborted = false;
    const release = registerStepHandler(
      'resolve',
      (input) =>
        new Promise((_, reject) =>
          input.signal.addEventListener('abort', () => {
            aborted = true;
            reject(input.signal.reason);
          }),
        ),
    );
    try {
      const res = await submit({ request: 'audit', domainRoute: ['resolve'] }, { prefer: 'respond-async' });
      assert.equal(res.status, 202, res.text);
      await until(
        async () => (await call('GET', `/v1/runs/${res.body.runId}`)).body.run.steps[0]?.status,
        (status) => status === 'running',
      );
      assert.equal((await call('POST', `/v1/runs/${res.body.runId}/cancel`)).status, 200);
      const run = await rest(res.body.runId);
      assert.equal(run.status, 'canceled');
      assert.ok(aborted, 'the step saw its AbortSignal fire');
    } finally {
      release();
    }
  });

  it('stream: a streamed run yields its events in order, live, ending in final', async () => {
    const res = await submit({
      request: 'find the cheapest espresso machine',
      domainRoute: ['hunt', 'resolve'],
      stream: true,
    });
    assert.equal(res.status, 200, res.text);
    const events = ndjson(res.text);
    assert.deepEqual(
      events.map((e) => e.id),
      events.map((_, i) => i + 1),
    );
    assert.equal(events.at(-1).type, 'final');
    assert.equal(events.at(-1).result.status, 'ready');
    assert.ok(events.some((e) => e.type === 'handoff' && e.name === 'resolve'));
  });

  it('webhooks: every run that rested was delivered to the subscription, signed', async () => {
    const runs = (await call('GET', '/v1/runs?limit=50')).body.runs as Array<{ runId: string; status: string }>;
    assert.ok(runs.length >= 4, `runs so far: ${runs.length}`);
    const delivered = () => new Set(rx.received.map((r) => r.body.data.runId));
    await until(delivered, (ids) => runs.every((run) => ids.has(run.runId)));
    assert.equal(rx.rejected.length, 0);
    assert.ok(rx.received.some((r) => r.body.type === 'run.canceled'));
    assert.ok(rx.received.some((r) => r.body.type === 'run.completed'));
  });

  it("runs' step jobs go to both shards, and the workers serve each", async () => {
    const completedOn = async (shard: number) => {
      const counts = await Promise.all(
        DOMAIN_NAMES.map((d) => app.deps.queues.queue(d, shard).getJobCounts('completed')),
      );
      return counts.reduce((n, c) => n + (c.completed ?? 0), 0);
    };
    // Which shard a run's jobs land on follows its run id: a few more runs make an empty shard all but impossible.
    for (let i = 0; i < 20 && ((await completedOn(0)) === 0 || (await completedOn(1)) === 0); i++) {
      const res = await submit({ request: 'find an espresso machine', domainRoute: ['hunt'] });
      // Its step ran (the run then rests: ready, or asking which candidate when several qualify).
      assert.deepEqual(
        res.body.trace.map((t: { status: string }) => t.status),
        ['completed'],
        res.text,
      );
    }
    assert.ok((await completedOn(0)) > 0 && (await completedOn(1)) > 0, 'each shard ran steps');
  });
});
