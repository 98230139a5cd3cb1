import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliverAttempt, dispatchDue } from '../../jobs/events/deliver.js';
import { retrySchedule } from '../../jobs/events/ledger.js';
import { claimDeliveries } from '../../shared/db/deliveries.js';
import { eventsByIds, recordEvent } from '../../shared/db/outbox.js';
import { subscriptionsByIds } from '../../jobs/events/subscriptions-repository.js';
import { NEUTRAL_REFUSAL } from '../support/egress-targets.js';
import { harness } from '../support/harness.js';
import { seedDeliveries } from '../support/ledger.js';
import { startReceiver, until } from '../support/receiver.js';

// longer than any retry delay of the test schedule: room for an extra attempt, if there were one
const settle = () => new Promise((r) => setTimeout(r, 500));

async function subscribe(token: string, endpoint: string, events: string[], mode: 'push' | 'pull' = 'push') {
  const res = await harness.call('POST', '/v1/event-subscriptions', { token, body: { endpoint, events, mode } });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.subscription.subscriptionId as string, secret: res.body.secret as string };
}

async function deliveriesOf(token: string, query: string): Promise<any[]> {
  return (await harness.call('GET', `/v1/event-deliveries?${query}&limit=200`, { token })).body.deliveries;
}

describe('webhook retries: the schedule caps the attempts, whatever Retry-After says', () => {
  it("an endpoint answering 429 with Retry-After: 0 gets 1 + the schedule's length attempts, then none", async () => {
    const { token } = await harness.account();
    const secrets: string[] = [];
    const rx = await startReceiver(
      () => secrets,
      () => ({ status: 429, headers: { 'retry-after': '0' } }),
    );
    try {
      const sub = await subscribe(token, rx.url, ['rate.limited']);
      secrets.push(sub.secret);
      const ev = await harness.call('POST', '/v1/events', { token, body: { type: 'rate.limited', payload: {} } });
      const cap = retrySchedule(harness.deps).length + 1;
      const chain = await until(
        () => deliveriesOf(token, `eventId=${ev.body.event.eventId}`),
        (d) => d.length >= cap && d.every((x) => x.status === 'failed'),
        20_000,
      );
      await settle();
      assert.equal(rx.received.length, cap, `${rx.received.length} attempts reached the endpoint`);
      const after = await deliveriesOf(token, `eventId=${ev.body.event.eventId}`);
      assert.deepEqual(
        after.map((d) => d.deliveryId).sort(),
        chain.map((d) => d.deliveryId).sort(),
        'no attempt was added after the last one failed',
      );
      assert.ok(after.every((d) => d.responseStatus === 429));
    } finally {
      await rx.stop();
    }
  });

  it('a pull worker failing with retryAfterSeconds: 0 cannot extend the chain past the schedule either', async () => {
    const { token, accountId } = await harness.account();
    await seedDeliveries(accountId, 1);
    const cap = retrySchedule(harness.deps).length + 1;
    for (let attempt = 1; attempt <= cap; attempt++) {
      const claimed = (await harness.call('POST', '/v1/event-deliveries/claim', { token, body: {} })).body.delivery;
      assert.equal(claimed?.attempt, attempt);
      const failed = await harness.call('POST', `/v1/event-deliveries/${claimed.deliveryId}/fail`, {
        token,
        body: { leaseToken: claimed.leaseToken, retryAfterSeconds: 0 },
      });
      if (attempt === cap) {
        assert.equal(failed.body.next, null, `attempt ${attempt} is the last one`);
        break;
      }
      assert.equal(failed.body.next.attempt, attempt + 1);
      // Due at once: the schedule's own delay is not what this test is about.
      await harness.deps
        .db('deliveries')
        .where({ id: failed.body.next.deliveryId })
        .update({ next_attempt_at: harness.deps.db.fn.now() });
    }
  });
});

describe('a paused subscription holds its events and delivers them on resume', () => {
  it('events raised while paused reach the endpoint after resume, in order, exactly once', async () => {
    const { token } = await harness.account();
    const secrets: string[] = [];
    const rx = await startReceiver(() => secrets);
    const witnessSecrets: string[] = [];
    // an active subscription to the same events shows the dispatcher has been through them
    const witness = await startReceiver(() => witnessSecrets);
    try {
      const sub = await subscribe(token, rx.url, ['order.*']);
      secrets.push(sub.secret);
      witnessSecrets.push((await subscribe(token, witness.url, ['order.*'])).secret);
      const paused = await harness.call('POST', `/v1/event-subscriptions/${sub.id}/update`, {
        token,
        body: { status: 'paused' },
      });
      assert.equal(paused.body.subscription.status, 'paused');
      const raised: string[] = [];
      for (const n of [1, 2, 3, 4, 5])
        raised.push(
          (await harness.call('POST', '/v1/events', { token, body: { type: 'order.placed', payload: { n } } })).body
            .event.eventId,
        );
      await until(
        () => witness.received.length,
        (n) => n >= 5,
      );
      assert.equal(rx.received.length, 0, 'nothing reaches a paused subscription');
      const held = await deliveriesOf(token, `subscriptionId=${sub.id}`);
      assert.deepEqual(
        held.map((d) => [d.status, d.attempt]),
        Array(5).fill(['queued', 1]),
        'each event is held as one queued attempt',
      );
      const stats = (await harness.call('GET', '/v1/event-deliveries/stats', { token })).body.stats;
      assert.deepEqual(
        [stats.byStatus.queued, stats.oldestQueuedAgeSec],
        [5, null],
        'held attempts are counted but do not age the queue',
      );

      const resumed = await harness.call('POST', `/v1/event-subscriptions/${sub.id}/update`, {
        token,
        body: { status: 'active' },
      });
      assert.equal(resumed.body.subscription.status, 'active');
      await until(
        () => rx.received.length,
        (n) => n >= 5,
      );
      await settle();
      assert.deepEqual(
        rx.received.map((r) => r.body.eventId),
        raised,
        'every held event, in the order raised, once',
      );
      assert.deepEqual(
        rx.received.map((r) => r.body.data.n),
        [1, 2, 3, 4, 5],
      );
      const done = await until(
        () => deliveriesOf(token, `subscriptionId=${sub.id}`),
        (d) => d.every((x) => x.status === 'completed'),
      );
      assert.equal(done.length, 5);
    } finally {
      await rx.stop();
      await witness.stop();
    }
  });

  it(
    'at resume, an event held longer than 7 days is ' + 'skipped with a reason, and can still be retried by ' + 'hand',
    async () => {
      const { token } = await harness.account();
      const secrets: string[] = [];
      const rx = await startReceiver(() => secrets);
      try {
        const sub = await subscribe(token, rx.url, ['doc.*']);
        secrets.push(sub.secret);
        await harness.call('POST', `/v1/event-subscriptions/${sub.id}/update`, { token, body: { status: 'paused' } });
        const stale = (
          await harness.call('POST', '/v1/events', { token, body: { type: 'doc.filed', payload: { which: 'stale' } } })
        ).body.event.eventId;
        const fresh = (
          await harness.call('POST', '/v1/events', { token, body: { type: 'doc.filed', payload: { which: 'fresh' } } })
        ).body.event.eventId;
        await harness.deps
          .db('events')
          .where({ id: stale })
          .update({ created_at: harness.deps.db.raw(`now() - interval '8 days'`) });
        await harness.call('POST', `/v1/event-subscriptions/${sub.id}/update`, { token, body: { status: 'active' } });
        await until(
          () => rx.received.length,
          (n) => n >= 1,
        );
        await settle();
        assert.deepEqual(
          rx.received.map((r) => r.body.eventId),
          [fresh],
        );
        const [skipped] = await deliveriesOf(token, `eventId=${stale}`);
        assert.equal(skipped.status, 'canceled');
        assert.match(skipped.error, /held for more than 7 days while the subscription was paused/);
        const retried = await harness.call('POST', `/v1/event-deliveries/${skipped.deliveryId}/retry`, { token });
        assert.equal(retried.status, 201);
        await until(
          () => rx.received.length,
          (n) => n >= 2,
        );
        assert.equal(rx.received[1]!.body.eventId, stale);
      } finally {
        await rx.stop();
      }
    },
  );
  it(
    'an attempt in flight when the subscription is paused and then failing gets its retry, held until the ' + 'resume',
    async () => {
      const { token, accountId } = await harness.account();
      const { subscriptionId } = await seedDeliveries(accountId, 1);
      const claimed = (await harness.call('POST', '/v1/event-deliveries/claim', { token, body: {} })).body.delivery;
      await harness.call('POST', `/v1/event-subscriptions/${subscriptionId}/update`, {
        token,
        body: { status: 'paused' },
      });
      const failed = await harness.call('POST', `/v1/event-deliveries/${claimed.deliveryId}/fail`, {
        token,
        body: { leaseToken: claimed.leaseToken, error: 'receiver down' },
      });
      assert.equal(failed.body.next?.attempt, 2, 'the retry exists');
      await harness.deps
        .db('deliveries')
        .where({ id: failed.body.next.deliveryId })
        .update({ next_attempt_at: harness.deps.db.fn.now() });
      assert.equal(
        (await harness.call('POST', '/v1/event-deliveries/claim', { token, body: {} })).body.delivery,
        null,
        'held while paused',
      );
      await harness.call('POST', `/v1/event-subscriptions/${subscriptionId}/update`, {
        token,
        body: { status: 'active' },
      });
      assert.equal(
        (await harness.call('POST', '/v1/event-deliveries/claim', { token, body: {} })).body.delivery?.deliveryId,
        failed.body.next.deliveryId,
      );
    },
  );
});

describe('a refused target is recorded with one neutral reason', () => {
  it(
    'a blocked literal, a local name and a name that does not resolve all store the same error, and nothing is ' +
      'reached',
    async () => {
      const { token, accountId } = await harness.account();
      const rx = await startReceiver(() => []);
      try {
        const port = new URL(rx.url).port;
        // Pull subscriptions: the dispatcher never claims their attempts, so this test delivers them itself, with
        // private
        // egress off.
        for (const endpoint of [
          `http://[::ffff:127.0.0.1]:${port}/hook`,
          `http://localhost.:${port}/hook`,
          `http://127.0.0.1:${port}/hook`,
          'http://no-such-host.corp.invalid/hook',
        ]) {
          await subscribe(token, endpoint, ['probe.sent'], 'pull');
        }
        await harness.call('POST', '/v1/events', { token, body: { type: 'probe.sent', payload: {} } });
        const strict = { ...harness.deps, config: { ...harness.deps.config, AWP_ALLOW_PRIVATE_EGRESS: false } };
        const claimed = await claimDeliveries(harness.deps.db, {
          accountId,
          mode: 'pull',
          limit: 10,
          leaseSeconds: 30,
          claimedBy: 'test',
        });
        assert.equal(claimed.length, 4);
        const subs = new Map(
          (
            await subscriptionsByIds(
              harness.deps.db,
              claimed.map((d) => d.subscription_id),
            )
          ).map((s) => [s.id, s]),
        );
        const [event] = await eventsByIds(harness.deps.db, [claimed[0]!.event_id]);
        for (const d of claimed) await deliverAttempt(strict, d, subs.get(d.subscription_id), event);
        const rows = await harness.deps.db('deliveries').whereIn(
          'id',
          claimed.map((d) => d.id),
        );
        for (const row of rows) {
          assert.equal(row.status, 'failed', subs.get(row.subscription_id)!.endpoint);
          assert.match(row.error, NEUTRAL_REFUSAL, subs.get(row.subscription_id)!.endpoint);
        }
        assert.equal(rx.received.length + rx.rejected.length, 0, 'no request reached the local receiver');
      } finally {
        await rx.stop();
      }
    },
  );
});

describe("one subscription's attempts go out one at a time, never past their lease", () => {
  it(
    'behind a slow receiver, an attempt that could outlast its lease is handed back and sent on a fresh claim: ' +
      'each completes once, in order',
    async () => {
      const { token, accountId } = await harness.account();
      const seen: number[] = [];
      const slow = http.createServer((req, res) => {
        let raw = '';
        req.on('data', (c) => (raw += c));
        req.on('end', () =>
          setTimeout(() => {
            seen.push(JSON.parse(raw).data.n);
            res.end('ok');
          }, 600),
        );
      });
      await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
      try {
        const sub = await subscribe(token, `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook`, [
          'slow.tick',
        ]);
        // Recorded without a wake-up, so this test's own dispatcher (a 2 s lease: less than five answers in a row) is
        // the
        // one that claims them.
        await harness.deps.db.transaction(async (trx) => {
          for (const n of [1, 2, 3, 4, 5]) await recordEvent(trx, { accountId, type: 'slow.tick', payload: { n } });
        });
        const shortLease = {
          ...harness.deps,
          config: { ...harness.deps.config, DELIVERY_LEASE_SECONDS: 2, WEBHOOK_TIMEOUT_MS: 5000 },
        };
        await dispatchDue(null, shortLease);
        const rows = await until(
          () => deliveriesOf(token, `subscriptionId=${sub.id}`),
          (d) => d.length >= 5 && d.every((x) => x.status === 'completed'),
        );
        assert.deepEqual(
          rows.map((d) => d.attempt),
          [1, 1, 1, 1, 1],
          'no attempt failed, none was added',
        );
        assert.deepEqual(seen, [1, 2, 3, 4, 5]);
      } finally {
        slow.closeAllConnections();
        slow.close();
      }
    },
  );
});
