import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { seedDeliveries } from '../support/ledger.js';

describe('delivery ledger API', () => {
  let a: { token: string; accountId: string };
  let b: { token: string; accountId: string };
  beforeEach(async () => {
    a = await harness.account();
    b = await harness.account();
  });

  it('claim → lease → complete; a stale token cannot complete; finished attempts cannot change', async () => {
    await seedDeliveries(a.accountId, 1);
    const claim = await harness.call('POST', '/v1/event-deliveries/claim', {
      token: a.token,
      body: { leaseSeconds: 30 },
    });
    assert.equal(claim.status, 200);
    const d = claim.body.delivery;
    assert.equal(d.status, 'claimed');
    assert.match(d.leaseToken, /^lease_/);
    const renewed = await harness.call('POST', `/v1/event-deliveries/${d.deliveryId}/lease`, {
      token: a.token,
      body: { leaseToken: d.leaseToken, leaseSeconds: 120 },
    });
    assert.ok(new Date(renewed.body.delivery.leaseExpiresAt) > new Date(d.leaseExpiresAt));
    const stale = await harness.call('POST', `/v1/event-deliveries/${d.deliveryId}/complete`, {
      token: a.token,
      body: { leaseToken: 'lease_wrong' },
    });
    assert.equal(stale.status, 409);
    const done = await harness.call('POST', `/v1/event-deliveries/${d.deliveryId}/complete`, {
      token: a.token,
      body: { leaseToken: d.leaseToken, responseStatus: 204 },
    });
    assert.equal(done.body.delivery.status, 'completed');
    for (const [path, body] of [
      ['complete', { leaseToken: d.leaseToken }],
      ['fail', { leaseToken: d.leaseToken }],
      ['release', { leaseToken: d.leaseToken }],
      ['cancel', {}],
      ['update', { metadata: { x: 1 } }],
    ] as const) {
      assert.equal(
        (await harness.call('POST', `/v1/event-deliveries/${d.deliveryId}/${path}`, { token: a.token, body })).status,
        409,
        path,
      );
    }
    const none = await harness.call('POST', '/v1/event-deliveries/claim', { token: a.token, body: {} });
    assert.equal(none.body.delivery, null);
  });

  it('release returns a claim to queued and invalidates its token; sweep returns expired leases', async () => {
    await seedDeliveries(a.accountId, 2);
    const batch = await harness.call('POST', '/v1/event-deliveries/claimBatch', {
      token: a.token,
      body: { limit: 2, leaseSeconds: 1 },
    });
    assert.equal(batch.body.deliveries.length, 2);
    const [x, y] = batch.body.deliveries;
    const released = await harness.call('POST', `/v1/event-deliveries/${x.deliveryId}/release`, {
      token: a.token,
      body: { leaseToken: x.leaseToken },
    });
    assert.equal(released.body.delivery.status, 'queued');
    assert.equal(
      (
        await harness.call('POST', `/v1/event-deliveries/${x.deliveryId}/complete`, {
          token: a.token,
          body: { leaseToken: x.leaseToken },
        })
      ).status,
      409,
    );
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal(
      (
        await harness.call('POST', `/v1/event-deliveries/${y.deliveryId}/complete`, {
          token: a.token,
          body: { leaseToken: y.leaseToken },
        })
      ).status,
      409,
      'expired lease',
    );
    const swept = await harness.call('POST', '/v1/event-deliveries/sweep', { token: a.token });
    assert.deepEqual(swept.body.returned, [y.deliveryId]);
    const ready = await harness.call('GET', '/v1/event-deliveries/ready', { token: a.token });
    assert.deepEqual(ready.body.deliveries.map((d: any) => d.deliveryId).sort(), [x.deliveryId, y.deliveryId].sort());
  });

  it(
    'fail schedules a child attempt; retry of a failed ' +
      'attempt adds one; the chain shows both; cancel and ' +
      'stats',
    async () => {
      await seedDeliveries(a.accountId, 2);
      const first = (await harness.call('POST', '/v1/event-deliveries/claim', { token: a.token, body: {} })).body
        .delivery;
      const scheduled = await harness.call('POST', `/v1/event-deliveries/${first.deliveryId}/fail`, {
        token: a.token,
        body: { leaseToken: first.leaseToken, error: 'receiver down', retryAfterSeconds: 600 },
      });
      assert.equal(scheduled.body.delivery.status, 'failed');
      assert.equal(scheduled.body.next.parentId, first.deliveryId);
      const waitMs =
        new Date(scheduled.body.next.nextAttemptAt).getTime() - new Date(scheduled.body.delivery.finishedAt).getTime();
      assert.ok(Math.abs(waitMs - 600_000) < 2000, `next attempt ${waitMs} ms later`);
      await harness.call('POST', `/v1/event-deliveries/${scheduled.body.next.deliveryId}/cancel`, { token: a.token });
      const c = (await harness.call('POST', '/v1/event-deliveries/claim', { token: a.token, body: {} })).body.delivery;
      const failed = await harness.call('POST', `/v1/event-deliveries/${c.deliveryId}/fail`, {
        token: a.token,
        body: { leaseToken: c.leaseToken, retry: false },
      });
      assert.equal(failed.body.next, null, 'retry: false schedules nothing');
      const retried = await harness.call('POST', `/v1/event-deliveries/${c.deliveryId}/retry`, { token: a.token });
      assert.equal(retried.status, 201);
      assert.equal(retried.body.delivery.parentId, c.deliveryId);
      assert.equal(retried.body.delivery.attempt, c.attempt + 1);
      assert.equal(
        (await harness.call('POST', `/v1/event-deliveries/${c.deliveryId}/retry`, { token: a.token })).status,
        409,
        'one retry per attempt',
      );
      const chain = await harness.call('GET', `/v1/event-deliveries/${retried.body.delivery.deliveryId}/chain`, {
        token: a.token,
      });
      assert.deepEqual(chain.body.chain.map((d: any) => d.deliveryId).slice(-2), [
        c.deliveryId,
        retried.body.delivery.deliveryId,
      ]);
      const canceled = await harness.call('POST', `/v1/event-deliveries/${retried.body.delivery.deliveryId}/cancel`, {
        token: a.token,
      });
      assert.equal(canceled.body.delivery.status, 'canceled');
      assert.equal(
        (
          await harness.call('POST', `/v1/event-deliveries/${retried.body.delivery.deliveryId}/retry`, {
            token: a.token,
          })
        ).status,
        201,
        'canceled attempts can be retried',
      );
      const stats = await harness.call('GET', '/v1/event-deliveries/stats', { token: a.token });
      assert.deepEqual(
        [stats.body.stats.byStatus.failed, stats.body.stats.byStatus.canceled, stats.body.stats.byStatus.queued],
        [2, 2, 1],
      );
      assert.equal(stats.body.stats.last24h.failureRate, 1);
    },
  );

  it('create, fetch, list, update; 400, 401, 404 and another account', async () => {
    const { eventId, subscriptionId, ids } = await seedDeliveries(a.accountId, 1);
    assert.equal(
      (await harness.call('POST', '/v1/event-deliveries', { token: a.token, body: { eventId, subscriptionId } }))
        .status,
      409,
      'the root exists',
    );
    assert.equal(
      (await harness.call('POST', '/v1/event-deliveries', { token: a.token, body: { eventId } })).status,
      400,
    );
    assert.equal(
      (await harness.call('POST', '/v1/event-deliveries', { token: b.token, body: { eventId, subscriptionId } }))
        .status,
      404,
    );
    assert.equal(
      (await harness.call('GET', `/v1/event-deliveries/${ids[0]}`, { token: a.token })).body.delivery.deliveryId,
      ids[0],
    );
    assert.equal((await harness.call('GET', `/v1/event-deliveries/${ids[0]}`, { token: b.token })).status, 404);
    assert.equal((await harness.call('GET', '/v1/event-deliveries/dlv_nope', { token: a.token })).status, 404);
    assert.equal(
      (await harness.call('GET', `/v1/event-deliveries?subscriptionId=${subscriptionId}`, { token: a.token })).body
        .deliveries.length,
      1,
    );
    assert.equal((await harness.call('GET', '/v1/event-deliveries', { token: b.token })).body.deliveries.length, 0);
    const later = new Date(Date.now() + 3600_000).toISOString();
    const updated = await harness.call('POST', `/v1/event-deliveries/${ids[0]}/update`, {
      token: a.token,
      body: { nextAttemptAt: later, metadata: { note: 'hold' } },
    });
    assert.equal(updated.body.delivery.nextAttemptAt, later);
    assert.equal(
      (
        await harness.call('POST', `/v1/event-deliveries/${ids[0]}/update`, {
          token: a.token,
          body: { nextAttemptAt: 'tomorrow' },
        })
      ).status,
      400,
    );
    assert.equal((await harness.call('POST', `/v1/event-deliveries/${ids[0]}/cancel`, { token: b.token })).status, 404);
    assert.equal(
      (await harness.call('POST', '/v1/event-deliveries/claim', { token: b.token, body: {} })).body.delivery,
      null,
      "b cannot claim a's deliveries",
    );
    assert.equal((await harness.call('POST', '/v1/event-deliveries/claim', { body: {} })).status, 401);
    assert.equal((await harness.call('GET', '/v1/event-deliveries/stats')).status, 401);
  });
});
