import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };

/** An open SSE stream of GET /v1/runs/events: its frames so far, and a wait for one that matches. */
async function openStream(token: string) {
  const ac = new AbortController();
  const res = await fetch(`${harness.url}/v1/runs/events`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const stream = {
    text: '',
    frames: () =>
      stream.text
        .split('\n\n')
        .filter((f) => /^event: /m.test(f))
        .map((f) => ({
          event: /^event: (.*)$/m.exec(f)![1]!,
          data: JSON.parse(/^data: (.*)$/m.exec(f)![1]!) as Record<string, any>,
        })),
    /** Reads until a frame matches; the test's own timeout bounds the wait. */
    async until(match: (f: { event: string; data: Record<string, any> }) => boolean) {
      for (;;) {
        const found = stream.frames().find(match);
        if (found) return found;
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended: ${stream.text}`);
        stream.text += decoder.decode(value, { stream: true });
      }
    },
    close: () => ac.abort(),
  };
  return stream;
}

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
