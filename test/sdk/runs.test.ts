import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { registerStepHandler } from '../../jobs/steps.js';
import { AwpError, createAwpClient, isRunResult, type RunEvent } from '../../sdk/src/index.js';
import { startDroppingProxy } from '../support/dropping-proxy.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';
import { seedCatalog } from '../support/runs.js';
import { ROOT } from '../support/spawn.js';

/** The SDK against the real service: runs submitted, followed, resumed, canceled and listed through it. */
describe('SDK: runs', () => {
  let token: string;
  let awp: ReturnType<typeof createAwpClient>;
  const posted: Array<string | null> = [];
  before(async () => {
    let accountId: string;
    ({ token, accountId } = await harness.account());
    await seedCatalog(accountId);
    awp = createAwpClient({
      baseUrl: harness.url,
      token,
      fetch: (input, init) => {
        const req = new Request(input, init);
        if (req.method === 'POST') posted.push(req.headers.get('idempotency-key'));
        return fetch(req);
      },
    });
  });

  it('submits sync: the rested run with its proof card, which the SDK then fetches', async () => {
    const answer = await awp.runs.submit({ request: 'find the cheapest espresso machine', domainRoute: ['hunt'] });
    assert.ok(isRunResult(answer), JSON.stringify(answer));
    assert.equal(answer.status, 'ready');
    assert.ok(answer.proofCard, 'a ready run has a proof card');
    const { proofCard } = await awp.proofCards.get(answer.proofCard.cardId);
    assert.deepEqual([proofCard.cardId, proofCard.runId], [answer.proofCard.cardId, answer.runId]);
    assert.equal((await awp.runs.get(answer.runId)).proofCardId, answer.proofCard.cardId);
  });

  it('submits async (202 at once), then waits for the final result over the stream', async () => {
    const accepted = await awp.runs.submit({ request: 'audit this', domainRoute: ['resolve'] }, { mode: 'async' });
    assert.ok(!isRunResult(accepted));
    assert.ok(['queued', 'running'].includes(accepted.status), accepted.status);
    const result = await awp.runs.wait(accepted.runId);
    assert.equal(result.runId, accepted.runId);
    assert.equal(result.status, 'ready');
  });

  it('sends an Idempotency-Key with every POST, new per call; a key given twice replays the first run', async () => {
    posted.length = 0;
    const body = { request: 'audit this', domainRoute: ['resolve' as const] };
    const a = await awp.runs.submit(body, { mode: 'async' });
    const b = await awp.runs.submit(body, { mode: 'async' });
    assert.notEqual(a.runId, b.runId);
    assert.equal(posted.length, 2);
    assert.ok(
      posted.every((k) => k && /^[0-9a-f-]{36}$/.test(k)),
      JSON.stringify(posted),
    );
    assert.notEqual(posted[0], posted[1]);
    const key = `sdk-${Date.now()}`;
    const first = await awp.runs.submit(body, { mode: 'async', idempotencyKey: key });
    const again = await awp.runs.submit(body, { mode: 'async', idempotencyKey: key });
    assert.equal(again.runId, first.runId);
  });

  for (const format of ['ndjson', 'sse'] as const) {
    it(`streams (${format}) across a dropped connection: resumed with Last-Event-ID, no gap, no repeat`, async () => {
      let letGo!: () => void;
      const gate = new Promise<void>((resolve) => (letGo = resolve));
      const release = registerStepHandler('resolve', async (input) => {
        await input.emit('before the drop');
        await gate;
        await input.emit('after the drop');
        return { output: { streamed: true }, evidence: [], conversation: ['done'] };
      });
      const proxy = await startDroppingProxy(harness.url, 'before the drop');
      try {
        const accepted = await awp.runs.submit({ request: 'audit', domainRoute: ['resolve'] }, { mode: 'async' });
        const viaProxy = createAwpClient({ baseUrl: proxy.url, token });
        const reconnects: number[] = [];
        const events: RunEvent[] = [];
        for await (const ev of viaProxy.runs.stream(accepted.runId, {
          format,
          onReconnect: ({ lastEventId }) => {
            reconnects.push(lastEventId);
            letGo(); // the run goes on only once the first connection is gone: what follows must come by the resume
          },
        }))
          events.push(ev);
        assert.equal(proxy.dropped(), 1);
        assert.equal(reconnects.length, 1);
        const ids = events.map((e) => e.id);
        assert.deepEqual(
          ids,
          ids.map((_, i) => i + 1),
          'every event once, in order',
        );
        const messages = events.filter((e) => e.type === 'domainStream').map((e) => e.message);
        assert.deepEqual(messages, ['before the drop', 'after the drop']);
        assert.equal(events.at(-1)!.type, 'final');
        const resumedWith = proxy.requests[1]!.match(/^last-event-id: (\d+)\r$/im)?.[1];
        assert.equal(Number(resumedWith), reconnects[0]);
        assert.ok(reconnects[0]! < events.at(-1)!.id);
      } finally {
        letGo();
        release();
        await proxy.stop();
      }
    });
  }

  it('resumes a run waiting for a choice: the answer continues the run in a new segment', async () => {
    const release = registerStepHandler('pay', async () => ({
      output: { paid: true },
      evidence: [],
      conversation: [],
    }));
    try {
      const first = await awp.runs.submit({ request: 'shortlist espresso machines under $250 so I can choose one' });
      assert.ok(isRunResult(first));
      assert.equal(first.status, 'NEEDS_INPUT');
      const choice = (first.results.hunt as { choices: Array<{ itemId: string }> }).choices[0]!;
      const resumed = await awp.runs.resume(first.runId, { itemId: choice.itemId, action: 'buy' });
      assert.equal(resumed.segment, 1);
      const run = await until(
        () => awp.runs.get(first.runId),
        (r) => r.status === 'ready',
      );
      assert.deepEqual(run.route, ['hunt', 'pay']);
      const again = await awp.runs.resume(first.runId, { itemId: choice.itemId, action: 'buy' }).catch((e) => e);
      assert.ok(again instanceof AwpError);
      assert.equal(again.status, 409);
      assert.equal(again.code, 'conflict');
    } finally {
      release();
    }
  });

  it('cancels a running run; a second cancel is a typed 409', async () => {
    let started = false;
    const release = registerStepHandler(
      'resolve',
      (input) =>
        new Promise((_, reject) => {
          started = true;
          input.signal.addEventListener('abort', () => reject(input.signal.reason as Error));
        }),
    );
    try {
      const accepted = await awp.runs.submit({ request: 'audit', domainRoute: ['resolve'] }, { mode: 'async' });
      await until(
        () => started,
        (s) => s,
      );
      const canceled = await awp.runs.cancel(accepted.runId);
      assert.deepEqual([canceled.runId, canceled.status], [accepted.runId, 'canceled']);
      assert.equal((await awp.runs.wait(accepted.runId)).status, 'canceled');
      const again = await awp.runs.cancel(accepted.runId).catch((e) => e);
      assert.ok(again instanceof AwpError && again.status === 409 && again.code === 'conflict', String(again));
    } finally {
      release();
    }
  });

  it('paginates: every run of the account once, a page of `limit` at a time', async () => {
    const { token: own } = await harness.account();
    const pages: string[] = [];
    const client = createAwpClient({
      baseUrl: harness.url,
      token: own,
      fetch: (input, init) => {
        const req = new Request(input, init);
        if (req.method === 'GET' && new URL(req.url).pathname === '/v1/runs') pages.push(req.url);
        return fetch(req);
      },
    });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (await client.runs.submit({ request: `audit ${i}`, domainRoute: ['resolve'] }, { mode: 'async' })).runId,
      );
    const listed: string[] = [];
    for await (const run of client.runs.list({ limit: 2 })) listed.push(run.runId);
    assert.deepEqual([...listed].sort(), [...ids].sort());
    assert.equal(new Set(listed).size, 5);
    assert.equal(pages.length, 3, 'pages of 2, 2 and 1');
    assert.ok(pages.slice(1).every((u) => new URL(u).searchParams.get('cursor')));
  });

  it('answers typed errors from the envelope: 404, 400 with details, 401', async () => {
    const missing = await awp.runs.get('run_doesnotexist').catch((e) => e);
    assert.ok(missing instanceof AwpError);
    assert.deepEqual([missing.status, missing.code], [404, 'notFound']);
    assert.match(missing.requestId ?? '', /\S/);
    const bad = await awp.runs.submit({ request: 'x', domainRoute: ['nowhere' as never] }).catch((e) => e);
    assert.ok(bad instanceof AwpError);
    assert.deepEqual([bad.status, bad.code], [400, 'invalidPayload']);
    assert.ok(
      Array.isArray(bad.details) && bad.details.some((d: { path?: string }) => /domainRoute/.test(d.path ?? '')),
    );
    const anonymous = createAwpClient({ baseUrl: harness.url, token: 'awp_not_a_token' });
    const refused = await anonymous.runs.get('run_x').catch((e) => e);
    assert.ok(refused instanceof AwpError);
    assert.deepEqual([refused.status, refused.code], [401, 'unauthorized']);
  });

  it("sdk/README.md's ten lines run: submit, stream, proof card", async () => {
    const readme = await readFile(path.join(ROOT, 'sdk/README.md'), 'utf8');
    const code = readme.match(/```ts\n([\s\S]*?)```/)![1]!;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'awp-sdk-readme-'));
    try {
      const file = path.join(dir, 'example.mts');
      await writeFile(
        file,
        'export const out: unknown[][] = [];\n' +
          code
            .replace("from 'awp-sdk'", `from '${path.join(ROOT, 'sdk/src/index.ts')}'`)
            .replace("'http://localhost:8080'", JSON.stringify(harness.url))
            .replace('process.env.AWP_TOKEN', JSON.stringify(token))
            .replace(/console\.log\((.*?)\);/g, 'out.push([$1]);'),
      );
      const { out } = (await import(file)) as { out: unknown[][] };
      assert.equal(out.at(-2)![1], 'final');
      assert.equal(out.at(-1)![0], 'ready');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
