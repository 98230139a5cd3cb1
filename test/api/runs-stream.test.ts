import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { openSse } from '../support/sse.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };

const openStream = (token: string) => openSse('/v1/runs/events', token);

describe('GET /v1/runs/events: the account’s runs, live', function () {
  this.timeout(60_000);
  let a: { token: string; accountId: string };
  let b: { token: string; accountId: string };
  const deploy = async (token: string, version: string) => {
    const res = await harness.call('POST', '/v1/delivery/run', {
      token,
      body: { service: 'web', environment: 'prod', version, artifacts: green },
    });
    assert.equal(res.body.status, 'awaitingApproval', res.text);
    return res.body.runId as string;
  };

  before(async () => {
    a = await harness.account();
    b = await harness.account();
  });

  it('401 without a token, 403 without runs:read', async () => {
    assert.equal((await harness.call('GET', '/v1/runs/events')).status, 401);
    const narrow = await harness.account({ scopes: ['pay:read'] });
    assert.equal((await harness.call('GET', '/v1/runs/events', { token: narrow.token })).status, 403);
  });

  it('ready with the newest runs, then a run made (run.created) and its status moving (run.changed)', async () => {
    const earlier = await deploy(a.token, '1.0.0');
    const stream = await openStream(a.token);
    try {
      const ready = await stream.until((f) => f.event === 'ready');
      assert.deepEqual(
        (ready.data.runs as any[]).map((r) => [r.runId, r.status]),
        [[earlier, 'awaitingApproval']],
      );
      const runId = await deploy(a.token, '1.1.0');
      const created = await stream.until((f) => f.event === 'run.created' && f.data.runId === runId);
      assert.equal(created.data.run.route.at(-1), 'delivery');
      // Made, it ran its steps (the POST answered once it rested): each status it passed through is a change.
      await stream.until((f) => f.data.runId === runId && f.data.run.status === 'awaitingApproval');
      const canceled = await harness.call('POST', `/v1/runs/${runId}/cancel`, { token: a.token });
      assert.equal(canceled.status, 200, canceled.text);
      const changed = await stream.until((f) => f.event === 'run.changed' && f.data.run.status === 'canceled');
      assert.deepEqual([changed.data.runId, changed.data.previousStatus], [runId, 'awaitingApproval']);
      // An older run (in ready) that moves is a change, not a new run.
      await harness.call('POST', `/v1/runs/${earlier}/cancel`, { token: a.token });
      const older = await stream.until((f) => f.event === 'run.changed' && f.data.runId === earlier);
      assert.equal(older.data.run.status, 'canceled');
      assert.equal(stream.frames().filter((f) => f.event === 'run.created').length, 1);
    } finally {
      stream.close();
    }
  });

  it("cross-account: B's stream carries none of A's runs", async () => {
    const streamA = await openStream(a.token);
    const streamB = await openStream(b.token);
    try {
      await streamA.until((f) => f.event === 'ready');
      const readyB = await streamB.until((f) => f.event === 'ready');
      assert.deepEqual(readyB.data.runs, [], 'B has no runs yet');
      const ofA = await deploy(a.token, '2.0.0');
      await streamA.until((f) => f.event === 'run.created' && f.data.runId === ofA);
      await harness.call('POST', `/v1/runs/${ofA}/cancel`, { token: a.token });
      await streamA.until((f) => f.event === 'run.changed' && f.data.runId === ofA);
      // B's own run, made after A's run moved twice: once B sees it, A's would have come first if it leaked.
      const ofB = await deploy(b.token, '2.0.0');
      await streamB.until((f) => f.event === 'run.created' && f.data.runId === ofB);
      assert.ok(!streamB.text.includes(ofA), streamB.text);
      assert.ok(!streamA.text.includes(ofB), 'nor A any of B’s');
    } finally {
      streamA.close();
      streamB.close();
    }
  });
});
