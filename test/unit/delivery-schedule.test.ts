import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { isBlockedAddress, REFUSED_TARGET } from '../../shared/http/egress.js';
import {
  DEFAULT_SCHEDULE_MS,
  matchesType,
  newWebhookSecret,
  nextDelayMs,
  retryAfterMs,
  retryDelayMs,
  verdictFor,
  webhookHeaders,
} from '../../jobs/events/logic.js';

describe('delivery rules', () => {
  it('retry schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h with ±20 % jitter, then none', () => {
    assert.deepEqual(
      DEFAULT_SCHEDULE_MS.map((_, i) => nextDelayMs(i + 1, DEFAULT_SCHEDULE_MS, () => 0.5)),
      [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
    );
    assert.equal(
      nextDelayMs(1, DEFAULT_SCHEDULE_MS, () => 0),
      4_000,
    );
    assert.equal(
      nextDelayMs(1, DEFAULT_SCHEDULE_MS, () => 1),
      6_000,
    );
    assert.equal(nextDelayMs(8), null);
  });
  it('Retry-After: seconds or HTTP date, bounded to [0, 10 h]', () => {
    assert.equal(retryAfterMs('30'), 30_000);
    assert.equal(retryAfterMs('1'), 1_000);
    assert.equal(retryAfterMs('0'), 0);
    assert.equal(retryAfterMs('999999'), 36_000_000);
    assert.equal(retryAfterMs(new Date(Date.now() + 60_000).toUTCString())! > 50_000, true);
    assert.equal(retryAfterMs('soon'), null);
    assert.equal(retryAfterMs(undefined), null);
  });
  it("Retry-After can lengthen a retry's wait but never add one: the schedule's length caps the attempts", () => {
    const schedule = [100, 200, 300];
    const mid = () => 0.5;
    assert.deepEqual(
      [1, 2, 3, 4].map((a) => retryDelayMs(a, schedule, 0, mid)),
      [100, 200, 300, null],
    );
    assert.deepEqual(
      [1, 2, 3, 4].map((a) => retryDelayMs(a, schedule, 250, mid)),
      [250, 250, 300, null],
    );
    assert.deepEqual(
      [1, 4].map((a) => retryDelayMs(a, schedule, 36_000_000, mid)),
      [36_000_000, null],
    );
    assert.equal(retryDelayMs(1, schedule, null, mid), 100);
  });
  it('verdicts: 2xx completes, 410 disables, the rest retries', () => {
    assert.deepEqual(
      [200, 204, 299, 410, 500, 429, 301, null].map((s) => verdictFor(s)),
      ['completed', 'completed', 'completed', 'disable', 'retry', 'retry', 'retry', 'retry'],
    );
  });
  it('signatures verify with the standardwebhooks package', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'a.b', data: { x: 1 } });
    const headers = webhookHeaders([secret], 'msg_1', Math.floor(Date.now() / 1000), body);
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers));
  });
  it('event type patterns', () => {
    assert.ok(matchesType(['task.*'], 'task.completed'));
    assert.ok(matchesType(['*'], 'x.y'));
    assert.ok(!matchesType(['task.completed'], 'task.failed'));
  });
  it('blocked addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
    ])
      assert.ok(isBlockedAddress(ip), ip);
    for (const ip of ['93.184.216.34', '2606:2800:220:1::1']) assert.ok(!isBlockedAddress(ip), ip);
  });
});

describe('guarded egress at connect time', () => {
  it('refuses a hostname that resolves to loopback, after DNS, unless private egress is allowed', async () => {
    const http = await import('node:http');
    const server = http.createServer((_req, res) => res.end('hello'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as import('node:net').AddressInfo).port;
    const { egressFetch } = await import('../../shared/http/egress.js');
    try {
      await assert.rejects(
        egressFetch(false, `http://localhost:${port}/`),
        (err: Error) => err.message === REFUSED_TARGET,
      );
      const ok = await egressFetch(true, `http://localhost:${port}/`);
      assert.deepEqual([ok.status, ok.text], [200, 'hello']);
      const small = await egressFetch(true, `http://localhost:${port}/`, { maxBytes: 2 });
      assert.deepEqual([small.text, small.truncated], ['he', true]);
    } finally {
      server.close();
    }
  });
});
