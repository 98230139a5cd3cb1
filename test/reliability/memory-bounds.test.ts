import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PassThrough } from 'node:stream';
import { followRun, waitForRest } from '../../jobs/orchestrator/follow.js';
import { registerStepHandler } from '../../jobs/steps.js';
import { startRedis } from '../../scripts/local-services.js';
import { createDeps } from '../../shared/deps.js';
import { newId } from '../../shared/ids.js';
import { createLogger } from '../../shared/log.js';
import { Bus } from '../../shared/redis/bus.js';
import { copiesOf, createRedis, type RedisClient } from '../../shared/redis/connection.js';
import { startWorkers } from '../../workers/domains.js';
import { startExtraApp } from '../support/extra-app.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';
import { seedCatalog } from '../support/runs.js';

/**
 * What a process keeps per run, per request and per reconnect: a channel while a run is followed or waited for, none
 * after; no listener added again when Redis comes back; about a page of events for a client that reads slowly.
 */
describe('what a process holds per run, per client and per reconnect stays bounded', function () {
  this.timeout(60_000);

  it('a sync wait, a stream, a wait that runs out and a follower that leaves all give their channel back', async () => {
    // An app of its own, so the bus its requests wait on is the one counted here.
    const app = await startExtraApp({});
    try {
      const { accountId, token } = await harness.account();
      await seedCatalog(accountId);
      const bus = app.deps.bus;
      const body = { request: 'find the cheapest espresso machine', domainRoute: ['hunt', 'resolve'] };
      const submit = (extra = {}) =>
        harness.call('POST', '/v1/orchestrator/run', { token, body: { ...body, ...extra } }, app.url);
      // One run first: the process's own channels (auth changes) are subscribed on first use and stay.
      assert.equal((await submit()).status, 200);
      const before = bus.size;
      const runs = await Promise.all(Array.from({ length: 4 }, () => submit()));
      for (const r of runs) assert.equal(r.status, 200, r.text);
      const stream = await submit({ stream: true });
      assert.equal(stream.status, 200, stream.text);
      assert.equal(await waitForRest(app.deps, `run_${randomBytes(8).toString('hex')}`, 200), null);
      const left = new AbortController();
      const follower = followRun(app.deps, `run_${randomBytes(8).toString('hex')}`, 0, 'ndjson', left.signal);
      follower.resume();
      await until(
        () => bus.size,
        (n) => n > before,
      );
      left.abort();
      await until(
        () => bus.size,
        (n) => n === before,
      );
      assert.equal(bus.size, before);
    } finally {
      await app.stop();
    }
  });

  it('a sync wait whose client went away gives its channel back at once, while its run goes on', async () => {
    // An app that would wait ten minutes: only the client's leaving can end its wait within this test.
    const app = await startExtraApp({ RUN_SYNC_WAIT_MS: '600000' });
    const { accountId, token } = await harness.account();
    const body = { request: 'audit the vendor', domainRoute: ['resolve'] };
    let release: (() => void) | undefined;
    const unregister = registerStepHandler('resolve', async (input) => {
      if (input.accountId === accountId) await new Promise<void>((r) => (release = r));
      return { output: { audited: true }, evidence: [], conversation: ['audited'] };
    });
    try {
      // Signed in once first: the app's own channel (auth changes) is subscribed on first use and stays.
      assert.equal((await harness.call('GET', '/v1/runs', { token }, app.url)).status, 200);
      const before = app.deps.bus.size;
      const client = new AbortController();
      const waiting = fetch(`${app.url}/v1/orchestrator/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: client.signal,
      }).catch(() => 'left');
      const run = await until(
        () => harness.deps.db('runs').where({ account_id: accountId }).first(),
        (r) => r?.status === 'running' && app.deps.bus.size > before && release !== undefined,
      );
      client.abort();
      assert.equal(await waiting, 'left');
      await until(
        () => app.deps.bus.size,
        (n) => n === before,
      );
      assert.equal((await harness.deps.db('runs').where({ id: run.id }).first()).status, 'running');
      release!();
      await until(
        () => harness.deps.db('runs').where({ id: run.id }).first(),
        (r) => r.status === 'ready',
      );
    } finally {
      release?.();
      unregister();
      await app.stop();
    }
  });

  it('a wait given an aborted signal does not wait', async () => {
    const left = new AbortController();
    left.abort();
    const before = harness.deps.bus.size;
    // Ten minutes: were the signal ignored, the test's own timeout would fail it.
    assert.equal(
      await waitForRest(harness.deps, `run_${randomBytes(8).toString('hex')}`, 600_000, 0, left.signal),
      null,
    );
    assert.equal(harness.deps.bus.size, before);
  });

  it('a stream whose client reads slowly holds about a page of events, and still gets every one in order', async () => {
    const { accountId } = await harness.account();
    const db = harness.deps.db;
    const id = newId('run');
    const total = 3000;
    const run = { id, account_id: accountId, status: 'ready', request: 'x', input: '{}', route: ['hunt'] };
    await db('runs').insert({ ...run, routing: '{}', event_seq: total, finished_at: new Date() });
    for (let from = 1; from <= total; from += 1000)
      await db('run_events').insert(
        Array.from({ length: 1000 }, (_, k) => from + k).map((seq) => ({
          ...{ run_id: id, seq, account_id: accountId, data: JSON.stringify({ message: 'm'.repeat(100) }) },
          type: seq === total ? 'final' : 'progress',
        })),
      );
    const out = followRun(harness.deps, id, 0, 'ndjson', new AbortController().signal) as PassThrough;
    let text = '';
    let most = 0;
    for await (const chunk of out) {
      most = Math.max(most, out.writableLength + out.readableLength);
      text += String(chunk);
      await new Promise((r) => setTimeout(r, 20)); // a slow client
    }
    const lines = text.trim().split('\n');
    assert.equal(lines.length, total);
    const pageBytes = 500 * Buffer.byteLength(`${lines[1]}\n`);
    // The whole run is ~6 pages: unpaced, the follower would have queued all of them for this client.
    assert.ok(most < pageBytes + 64 * 1024, `held ${most} bytes; a page is ${pageBytes}`);
    assert.equal(JSON.parse(lines.at(-1)!).type, 'final');
  });

  it('a SUBSCRIBE Redis refuses leaves no channel behind, and the next subscriber sends it again', async () => {
    const user = `bus_${randomBytes(4).toString('hex')}`;
    const admin = harness.deps.redis;
    await admin.call('ACL', 'SETUSER', user, 'on', 'nopass', '~*', '+@all', 'resetchannels');
    const url = new URL(harness.config.REDIS_URL!);
    url.username = user;
    const publisher = createRedis(url.toString());
    const bus = new Bus(publisher, `{bus-test-${user}}`);
    try {
      await assert.rejects(
        bus.subscribe('x', () => undefined),
        /NOPERM/,
      );
      assert.equal(bus.size, 0, 'the refused channel was dropped');
      await admin.call('ACL', 'SETUSER', user, 'allchannels');
      const got: string[] = [];
      const unsubscribe = await bus.subscribe('x', (m) => got.push(m));
      await admin.publish(bus.channel('x'), '"hello"');
      await until(
        () => got,
        (g) => g.length === 1,
      );
      await unsubscribe();
      assert.equal(bus.size, 0);
    } finally {
      await bus.close();
      publisher.disconnect();
      await admin.call('ACL', 'DELUSER', user);
    }
  });

  it('after Redis restarts, no client has a listener added twice and the bus still delivers', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awp-bus-bounds-'));
    let redis = await startRedis(dir, { persist: false });
    const deps = createDeps(
      harness.configWith({ REDIS_URL: redis.url, QUEUE_PREFIX: '{awp-bus-bounds}' }),
      createLogger('silent'),
    );
    const workers = startWorkers(deps, ['hunt', 'orchestrator']);
    const got: string[] = [];
    const clients = () => [deps.redis, ...copiesOf(deps.redis)];
    const ready = () =>
      until(
        () => clients().map((c) => c.status),
        (s) => s.every((x) => x === 'ready'),
        20_000,
      );
    // Published until one arrives: after a restart the subscriber may SUBSCRIBE again just after the publisher is back.
    const delivered = async () => {
      got.length = 0;
      await until(
        async () => {
          await deps.bus.publish('probe', 'hello');
          return got;
        },
        (g) => g.length > 0,
      );
    };
    try {
      await deps.bus.subscribe('probe', (m) => got.push(m));
      await ready();
      await delivered();
      const at = JSON.stringify(listenerCounts(clients()));
      for (let i = 0; i < 2; i++) {
        await redis.stop();
        redis = await startRedis(dir, { persist: false, port: redis.port });
        await ready();
      }
      await delivered();
      // While a client reconnects BullMQ waits for its `ready` with listeners it then removes: the counts come back to
      // what they were, or a listener was added for good.
      await until(
        () => JSON.stringify(listenerCounts(clients())),
        (now) => now === at,
      );
      assert.equal(deps.bus.size, 1, 'the probe channel, once');
    } finally {
      for (const w of workers) await w.stop();
      await deps.close();
      await redis.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Listeners per event over `clients`, and how many clients there are. */
function listenerCounts(clients: RedisClient[]): Record<string, number> {
  const out: Record<string, number> = { clients: clients.length };
  for (const c of clients)
    for (const ev of c.eventNames()) out[String(ev)] = (out[String(ev)] ?? 0) + c.listenerCount(ev);
  return out;
}
