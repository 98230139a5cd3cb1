import assert from 'node:assert/strict';
import http from 'node:http';
import { registerStepHandler } from '../../jobs/steps.js';
import { invalidPayload } from '../../shared/errors.js';
import { harness } from '../support/harness.js';
import { pollUntilRest, seedCatalog } from '../support/runs.js';

/** Reads an SSE response until `stopAfter` events arrived (then drops the connection) or the stream ends. */
function readSse(
  url: string,
  token: string,
  lastEventId: string | null,
  stopAfter: number,
): Promise<Array<{ id: number; event: string; data: any }>> {
  return new Promise((resolve, reject) => {
    const events: Array<{ id: number; event: string; data: any }> = [];
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'text/event-stream' };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    const req = http.get(url, { headers }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let idx: number;
        while ((idx = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, idx);
          buf = buf.slice(idx + 2);
          if (block.startsWith(':')) continue;
          const fields = Object.fromEntries(
            block.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
          );
          events.push({ id: Number(fields.id), event: fields.event!, data: JSON.parse(fields.data!) });
          if (events.length >= stopAfter) {
            req.destroy();
            resolve(events);
            return;
          }
        }
      });
      res.on('end', () => resolve(events));
    });
    req.on('error', (err) => (events.length >= stopAfter ? resolve(events) : reject(err)));
  });
}

describe('run control: streams, cancel, failures', () => {
  let token: string;
  let accountId: string;
  before(async () => {
    ({ token, accountId } = await harness.account());
    await seedCatalog(accountId);
  });

  it('SSE resume after a dropped connection yields every event exactly once', async () => {
    const res = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find the cheapest espresso machine', domainRoute: ['hunt', 'resolve'] },
    });
    assert.equal(res.body.status, 'ready');
    const url = `${harness.url}/v1/runs/${res.body.runId}/events`;
    const all = await readSse(url, token, null, 1000);
    assert.equal(all[all.length - 1]!.event, 'final');
    const firstPart = await readSse(url, token, null, 3);
    assert.equal(firstPart.length, 3);
    const rest = await readSse(url, token, String(firstPart[2]!.id), 1000);
    const ids = [...firstPart, ...rest].map((e) => e.id);
    assert.deepEqual(
      ids,
      all.map((e) => e.id),
    );
    assert.equal(new Set(ids).size, ids.length);
    const viaQuery = await harness.call('GET', `/v1/runs/${res.body.runId}/events?after=${all.length - 1}`, { token });
    assert.deepEqual(
      viaQuery.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).type),
      ['final'],
    );
  });

  it('the event stream follows a live run until it rests', async () => {
    const release = registerStepHandler('resolve', async (input) => {
      await input.emit('working slowly');
      await new Promise((r) => setTimeout(r, 400));
      return { output: { slow: true }, evidence: [], conversation: ['done slowly'] };
    });
    try {
      const res = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        body: { request: 'audit', domainRoute: ['resolve'] },
        headers: { prefer: 'respond-async' },
      });
      const events = await readSse(`${harness.url}/v1/runs/${res.body.runId}/events`, token, null, 1000);
      assert.equal(events[events.length - 1]!.event, 'final');
      assert.ok(events.some((e) => e.event === 'domainStream' && e.data.message === 'working slowly'));
      assert.deepEqual(
        events.map((e) => e.id),
        events.map((_, i) => i + 1),
      );
    } finally {
      release();
    }
  });

  it('cancel stops a slow step where it runs and the run rests canceled', async () => {
    let aborted = false;
    const release = registerStepHandler(
      'resolve',
      (input) =>
        new Promise((_, reject) => {
          input.signal.addEventListener('abort', () => {
            aborted = true;
            reject(input.signal.reason);
          });
        }),
    );
    try {
      const res = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        body: { request: 'audit', domainRoute: ['resolve'] },
        headers: { prefer: 'respond-async' },
      });
      const runId = res.body.runId;
      for (let i = 0; i < 100; i++) {
        const run = await harness.call('GET', `/v1/runs/${runId}`, { token });
        if (run.body.run.steps[0]?.status === 'running') break;
        await new Promise((r) => setTimeout(r, 30));
      }
      const cancel = await harness.call('POST', `/v1/runs/${runId}/cancel`, { token });
      assert.equal(cancel.status, 200);
      const run = await pollUntilRest(token, runId);
      assert.equal(run.status, 'canceled');
      assert.equal(run.steps[0].status, 'canceled');
      assert.ok(aborted, 'the step saw its AbortSignal fire');
      assert.equal((await harness.call('POST', `/v1/runs/${runId}/cancel`, { token })).status, 409);
    } finally {
      release();
    }
  });

  it('a step failing on bad input fails the run with a readable reason, without retries', async () => {
    let calls = 0;
    const release = registerStepHandler('resolve', async () => {
      calls++;
      throw invalidPayload('the documents field must hold text');
    });
    try {
      const res = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        body: { request: 'audit', domainRoute: ['resolve'] },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'failed');
      assert.match(res.body.error, /resolve step failed: the documents field must hold text/);
      assert.equal(res.body.proofCard, null);
      assert.equal(calls, 1);
    } finally {
      release();
    }
  });

  it('a transient step error is retried with backoff and the run completes once', async () => {
    let calls = 0;
    const release = registerStepHandler('resolve', async () => {
      calls++;
      if (calls === 1) throw new Error('connection reset');
      return {
        output: { attempt: calls },
        evidence: [{ claim: 'x', source: 'https://e.example', sourceBound: true }],
        conversation: ['ok'],
      };
    });
    try {
      const res = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        body: { request: 'audit', domainRoute: ['resolve'] },
      });
      assert.equal(res.body.status, 'ready', res.text);
      assert.equal(res.body.results.resolve.attempt, 2);
      const run = await harness.call('GET', `/v1/runs/${res.body.runId}`, { token });
      assert.equal(run.body.run.steps[0].attempts, 2);
    } finally {
      release();
    }
  });
});

describe('a client that goes away', () => {
  it('stops the server-side follower: the run channel loses its subscriber while the run goes on', async () => {
    const { token } = await harness.account();
    let finish!: () => void;
    const release = registerStepHandler(
      'resolve',
      () =>
        new Promise((resolve) => {
          finish = () => resolve({ output: {}, evidence: [], conversation: ['ok'] });
        }),
    );
    try {
      const res = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        body: { request: 'audit', domainRoute: ['resolve'] },
        headers: { prefer: 'respond-async' },
      });
      const runId = res.body.runId;
      const channel = harness.deps.bus.channel(`run:${runId}`);
      const subscribers = async () =>
        Number(((await harness.deps.redis.call('PUBSUB', 'NUMSUB', channel)) as [string, number])[1]);
      const controller = new AbortController();
      const stream = await fetch(`${harness.url}/v1/runs/${runId}/events`, {
        headers: { authorization: `Bearer ${token}` },
        signal: controller.signal,
      });
      const reader = stream.body!.getReader();
      await reader.read();
      assert.equal(await subscribers(), 1);
      controller.abort();
      for (let i = 0; i < 100 && (await subscribers()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(await subscribers(), 0);
      assert.equal((await harness.deps.db('runs').where({ id: runId }).first()).status, 'running');
      finish();
      await pollUntilRest(token, runId);
    } finally {
      release();
    }
  });
});
