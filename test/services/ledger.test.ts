import assert from 'node:assert/strict';
import { cancelDelivery, claimPull, completeByClient, releaseDelivery } from '../../jobs/events/deliveries-service.js';
import { deliverAttempt } from '../../jobs/events/deliver.js';
import { failAttempt, transitionDelivery } from '../../jobs/events/ledger.js';
import { updateSubscriptionByClient } from '../../jobs/events/subscriptions-service.js';
import { eventsByIds } from '../../shared/db/outbox.js';
import { subscriptionsByIds } from '../../jobs/events/subscriptions-repository.js';
import type { AppError } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { harness } from '../support/harness.js';
import { seedDeliveries } from '../support/ledger.js';

describe('delivery ledger service', () => {
  let principal: Principal;
  beforeEach(async () => {
    const a = await harness.account();
    principal = { accountId: a.accountId, tokenId: a.tokenId, scopes: [], plan: 'team', activated: true };
  });
  const db = () => harness.deps.db;
  const row = async (id: string) => db()('deliveries').where({ id }).first();
  const is409 = (details?: unknown) => (err: AppError) =>
    err.status === 409 && (details === undefined || JSON.stringify(err.details) === JSON.stringify(details));

  it(
    'a finished attempt never moves: cancel of a completed ' + 'one is 409 naming the move, and the row is unchanged',
    async () => {
      await seedDeliveries(principal.accountId, 1);
      const [claimed] = await claimPull(harness.deps, principal, { limit: 1, leaseSeconds: 30 });
      const done = await completeByClient(harness.deps, principal, claimed!.id, {
        leaseToken: claimed!.lease_token!,
        responseStatus: 200,
      });
      await assert.rejects(
        cancelDelivery(harness.deps, principal, done.id),
        is409({ from: 'completed', to: 'canceled', allowed: [] }),
      );
      assert.deepEqual(await row(done.id), done);
    },
  );

  it('transition() refuses a move that is not in the table (queued cannot complete) and writes nothing', async () => {
    const { ids } = await seedDeliveries(principal.accountId, 1);
    const before = await row(ids[0]!);
    await assert.rejects(
      db().transaction(async (trx) => transitionDelivery(trx, before, 'completed')),
      is409({ from: 'queued', to: 'completed', allowed: ['claimed', 'canceled'] }),
    );
    assert.deepEqual(await row(ids[0]!), before);
  });

  it(
    'moves carry their side effects: release drops lease and claimer, cancel of a claim drops the lease and ' +
      'finishes it',
    async () => {
      await seedDeliveries(principal.accountId, 2);
      const [x, y] = await claimPull(harness.deps, principal, { limit: 2, leaseSeconds: 30, workerId: 'w1' });
      const released = await releaseDelivery(harness.deps, principal, x!.id, x!.lease_token!);
      assert.deepEqual(
        [released.status, released.lease_token, released.lease_expires_at, released.claimed_by, released.finished_at],
        ['queued', null, null, null, null],
      );
      const canceled = await cancelDelivery(harness.deps, principal, y!.id);
      assert.deepEqual([canceled.status, canceled.lease_token, canceled.lease_expires_at], ['canceled', null, null]);
      assert.ok(canceled.finished_at);
    },
  );

  it('a failure that disables the subscription writes subscription.disabled once and schedules no retry', async () => {
    const { subscriptionId } = await seedDeliveries(principal.accountId, 2);
    const disabledEvents = () => db()('events').where({ type: 'subscription.disabled', subject: subscriptionId });
    const [first, second] = await claimPull(harness.deps, principal, { limit: 2, leaseSeconds: 30 });
    const gone = await failAttempt(harness.deps, principal.accountId, first!.id, first!.lease_token!, {
      retry: true,
      gone: true,
      responseStatus: 410,
    });
    assert.equal(gone.next, null);
    const sub = await db()('subscriptions').where({ id: subscriptionId }).first();
    assert.deepEqual([sub.status, sub.disabled_reason], ['disabled', 'the endpoint answered 410 Gone']);
    const again = await failAttempt(harness.deps, principal.accountId, second!.id, second!.lease_token!, {
      retry: true,
      gone: true,
    });
    assert.equal(again.next, null);
    assert.equal((await disabledEvents()).length, 1);
    const resumed = await updateSubscriptionByClient(harness.deps, principal, subscriptionId, { status: 'active' });
    assert.deepEqual(
      [resumed.row.status, resumed.row.disabled_reason, resumed.row.failing_since],
      ['active', null, null],
    );
  });

  it(
    'an attempt claimed just before its subscription was paused goes back held, due time kept, without a ' + 'failure',
    async () => {
      const { subscriptionId, ids } = await seedDeliveries(principal.accountId, 1);
      const [claimed] = await claimPull(harness.deps, principal, { limit: 1, leaseSeconds: 30 });
      await updateSubscriptionByClient(harness.deps, principal, subscriptionId, { status: 'paused' });
      const [sub] = await subscriptionsByIds(db(), [subscriptionId]);
      const [event] = await eventsByIds(db(), [claimed!.event_id]);
      assert.equal(await deliverAttempt(harness.deps, claimed!, sub, event), 'paused');
      const after = await row(ids[0]!);
      assert.deepEqual(
        [after.status, after.held, after.attempt, after.lease_token, after.error, after.finished_at],
        ['queued', true, 1, null, null, null],
      );
      assert.deepEqual(after.next_attempt_at, claimed!.next_attempt_at, 'its place in line is kept');
      assert.equal((await db()('deliveries').where({ parent_id: ids[0] })).length, 0);
      assert.deepEqual(
        await claimPull(harness.deps, principal, { limit: 1, leaseSeconds: 30 }),
        [],
        'held: nobody claims it',
      );
      await updateSubscriptionByClient(harness.deps, principal, subscriptionId, { status: 'active' });
      const [again] = await claimPull(harness.deps, principal, { limit: 1, leaseSeconds: 30 });
      assert.equal(again?.id, ids[0], 'released on resume');
    },
  );
});
