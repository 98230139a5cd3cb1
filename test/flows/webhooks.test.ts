import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { startReceiver, until } from '../support/receiver.js';

describe('webhooks end to end', () => {
  it('each event reaches each matching subscription exactly once, signed per Standard Webhooks', async () => {
    const { token } = await harness.account();
    const secrets: string[] = [];
    const rx = await startReceiver(() => secrets);
    try {
      const a = await harness.call('POST', '/v1/event-subscriptions', {
        token,
        body: { endpoint: rx.url, events: ['task.completed'] },
      });
      assert.equal(a.status, 201, a.text);
      assert.match(a.body.secret, /^whsec_/);
      secrets.push(a.body.secret);
      const b = await harness.call('POST', '/v1/events/subscriptions', {
        token,
        body: { endpoint: `${rx.url}?second`, events: ['task.*'] },
      });
      secrets.push(b.body.secret);
      await harness.call('POST', '/v1/event-subscriptions', {
        token,
        body: { endpoint: rx.url, events: ['pay.settled'] },
      });

      const task = await harness.call('POST', '/v1/tasks', { token, body: { domain: 'hunt', inData: {} } });
      await harness.call('POST', `/v1/tasks/${task.body.task.taskId}/update`, {
        token,
        body: { status: 'completed', outData: { ok: 1 } },
      });
      await until(
        () => rx.received.length,
        (n) => n >= 2,
      );
      await new Promise((r) => setTimeout(r, 300)); // room for a duplicate to show up, if there were one
      assert.equal(rx.received.length, 2);
      assert.equal(rx.rejected.length, 0);
      const ids = rx.received.map((r) => r.id);
      assert.equal(new Set(ids).size, 2);
      for (const r of rx.received) {
        assert.equal(r.body.type, 'task.completed');
        assert.equal(r.body.data.taskId, task.body.task.taskId);
        assert.ok(r.headers['webhook-timestamp']);
      }
      const deliveries = await harness.call('GET', '/v1/event-deliveries?status=completed', { token });
      assert.equal(deliveries.body.deliveries.length, 2);
      assert.equal(deliveries.body.deliveries[0].responseStatus, 200);
    } finally {
      await rx.stop();
    }
  });

  it('a receiver failing twice then succeeding gets three attempts with the right lineage', async () => {
    const { token } = await harness.account();
    const secrets: string[] = [];
    const rx = await startReceiver(
      () => secrets,
      (n) => ({ status: n <= 2 ? 503 : 200 }),
    );
    try {
      const sub = await harness.call('POST', '/v1/event-subscriptions', {
        token,
        body: { endpoint: rx.url, events: ['*'] },
      });
      secrets.push(sub.body.secret);
      const ev = await harness.call('POST', '/v1/events', {
        token,
        body: { type: 'order.shipped', payload: { orderId: 'o1' } },
      });
      assert.equal(ev.status, 201);
      assert.equal(ev.body.deliveries, 1);
      await until(
        () => rx.received.length,
        (n) => n >= 3,
      );
      const detail = await harness.call('GET', `/v1/events/${ev.body.event.eventId}`, { token });
      const last = await until(
        async () =>
          (await harness.call('GET', `/v1/event-deliveries?eventId=${ev.body.event.eventId}`, { token })).body
            .deliveries,
        (d) => d.some((x: any) => x.status === 'completed'),
      );
      const chain = await harness.call('GET', `/v1/event-deliveries/${last[0].deliveryId}/chain`, { token });
      assert.deepEqual(
        chain.body.chain.map((d: any) => [d.attempt, d.status, d.responseStatus]),
        [
          [1, 'failed', 503],
          [2, 'failed', 503],
          [3, 'completed', 200],
        ],
      );
      assert.equal(chain.body.chain[1].parentId, chain.body.chain[0].deliveryId);
      assert.equal(chain.body.chain[2].parentId, chain.body.chain[1].deliveryId);
      assert.equal(new Set(rx.received.map((r) => r.id)).size, 1, 'webhook-id is stable across retries');
      assert.equal(detail.status, 200);
      const sub2 = await harness.call('GET', `/v1/event-subscriptions/${sub.body.subscription.subscriptionId}`, {
        token,
      });
      assert.equal(sub2.body.subscription.failingSince, null, 'a success clears the failing streak');
      assert.ok(!JSON.stringify(sub2.body).includes(sub.body.secret), 'the secret is never shown again');
    } finally {
      await rx.stop();
    }
  });

  it('secret rotation: during the overlap each delivery verifies under the old and the new secret', async () => {
    const { token } = await harness.account();
    let known: string[] = [];
    const rx = await startReceiver(() => known);
    try {
      const sub = await harness.call('POST', '/v1/event-subscriptions', {
        token,
        body: { endpoint: rx.url, events: ['doc.signed'] },
      });
      const oldSecret = sub.body.secret;
      const rotated = await harness.call(
        'POST',
        `/v1/event-subscriptions/${sub.body.subscription.subscriptionId}/update`,
        { token, body: { rotateSecret: true } },
      );
      assert.equal(rotated.status, 200);
      const newSecret = rotated.body.secret;
      assert.notEqual(newSecret, oldSecret);
      assert.ok(rotated.body.subscription.secretRotation.previousSecretValidUntil);
      known = [oldSecret, newSecret];
      await harness.call('POST', '/v1/events', { token, body: { type: 'doc.signed', payload: { n: 1 } } });
      await until(
        () => rx.received.length,
        (n) => n >= 1,
      );
      assert.deepEqual(rx.received[0]!.verifiedWith.sort(), [newSecret, oldSecret].sort());
      assert.equal(String(rx.received[0]!.headers['webhook-signature']).split(' ').length, 2);
    } finally {
      await rx.stop();
    }
  });

  it('410 Gone disables the subscription with a subscription.disabled event; 429 honours Retry-After', async () => {
    const { token, accountId } = await harness.account();
    const secrets: string[] = [];
    const rx = await startReceiver(
      () => secrets,
      () => ({ status: 410 }),
    );
    try {
      const sub = await harness.call('POST', '/v1/event-subscriptions', {
        token,
        body: { endpoint: rx.url, events: ['x.y'] },
      });
      secrets.push(sub.body.secret);
      await harness.call('POST', '/v1/events', { token, body: { type: 'x.y', payload: {} } });
      const disabled = await until(
        async () =>
          (await harness.call('GET', `/v1/event-subscriptions/${sub.body.subscription.subscriptionId}`, { token })).body
            .subscription,
        (s) => s.status === 'disabled',
      );
      assert.match(disabled.disabledReason, /410/);
      const events = await harness.deps.db('events').where({ account_id: accountId, type: 'subscription.disabled' });
      assert.equal(events.length, 1);
      assert.equal(rx.received.length, 1, 'no retry after 410');
    } finally {
      await rx.stop();
    }
    const rx2Secrets: string[] = [];
    const rx2 = await startReceiver(
      () => rx2Secrets,
      (n) => (n === 1 ? { status: 429, headers: { 'retry-after': '7' } } : { status: 200 }),
    );
    try {
      const sub = await harness.call('POST', '/v1/event-subscriptions', {
        token,
        body: { endpoint: rx2.url, events: ['x.z'] },
      });
      rx2Secrets.push(sub.body.secret);
      const ev = await harness.call('POST', '/v1/events', { token, body: { type: 'x.z', payload: {} } });
      const chain = await until(
        async () =>
          (await harness.call('GET', `/v1/event-deliveries?eventId=${ev.body.event.eventId}`, { token })).body
            .deliveries,
        (d) => d.length === 2,
      );
      const next = chain.find((d: any) => d.attempt === 2);
      const wait =
        new Date(next.nextAttemptAt).getTime() - new Date(chain.find((d: any) => d.attempt === 1).finishedAt).getTime();
      assert.ok(wait >= 6000 && wait <= 8000, `retry scheduled ${wait} ms later, per Retry-After: 7`);
    } finally {
      await rx2.stop();
    }
  });
});

describe('subscription auto-disable', () => {
  it('a subscription failing continuously for 5 days is disabled on its next failure, with an event', async () => {
    const { token, accountId } = await harness.account();
    const secrets: string[] = [];
    const rx = await startReceiver(
      () => secrets,
      () => ({ status: 500 }),
    );
    try {
      const sub = await harness.call('POST', '/v1/event-subscriptions', {
        token,
        body: { endpoint: rx.url, events: ['a.b'] },
      });
      secrets.push(sub.body.secret);
      const id = sub.body.subscription.subscriptionId;
      await harness.deps
        .db('subscriptions')
        .where({ id })
        .update({ failing_since: harness.deps.db.raw(`now() - interval '5 days 1 hour'`) });
      await harness.call('POST', '/v1/events', { token, body: { type: 'a.b', payload: {} } });
      const s = await until(
        async () => (await harness.call('GET', `/v1/event-subscriptions/${id}`, { token })).body.subscription,
        (x) => x.status === 'disabled',
      );
      assert.match(s.disabledReason, /5 days/);
      assert.equal(
        (await harness.deps.db('events').where({ account_id: accountId, type: 'subscription.disabled', subject: id }))
          .length,
        1,
      );
      const deliveries = await harness.call('GET', `/v1/event-deliveries?subscriptionId=${id}`, { token });
      assert.deepEqual(
        deliveries.body.deliveries.map((d: any) => d.status),
        ['failed'],
        'no retry once disabled',
      );
    } finally {
      await rx.stop();
    }
  });
});
