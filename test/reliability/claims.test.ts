import assert from 'node:assert/strict';
import { claimDeliveries } from '../../shared/db/deliveries.js';
import { harness } from '../support/harness.js';
import { seedDeliveries } from '../support/ledger.js';

describe('ledger under concurrency', function () {
  this.timeout(60_000);

  it('20 concurrent claimers over 500 deliveries claim each exactly once (through the API)', async () => {
    const { token, accountId } = await harness.account();
    const { ids } = await seedDeliveries(accountId, 500);
    const claimedBy = new Map<string, number>();
    await Promise.all(
      Array.from({ length: 20 }, async (_, worker) => {
        for (;;) {
          const res = await harness.call('POST', '/v1/event-deliveries/claimBatch', {
            token,
            body: { limit: 7, leaseSeconds: 300, workerId: `w${worker}` },
          });
          assert.equal(res.status, 200, res.text);
          if (res.body.deliveries.length === 0) return;
          for (const d of res.body.deliveries) claimedBy.set(d.deliveryId, (claimedBy.get(d.deliveryId) ?? 0) + 1);
        }
      }),
    );
    assert.equal(claimedBy.size, 500);
    assert.deepEqual(
      [...claimedBy.values()].filter((n) => n !== 1),
      [],
    );
    assert.deepEqual([...claimedBy.keys()].sort(), [...ids].sort());
  });

  it('concurrent completes with the same lease token settle the attempt once', async () => {
    const { token, accountId } = await harness.account();
    await seedDeliveries(accountId, 1);
    const [d] = await claimDeliveries(harness.deps.db, {
      accountId,
      mode: 'pull',
      limit: 1,
      leaseSeconds: 60,
      claimedBy: 't',
    });
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        harness.call('POST', `/v1/event-deliveries/${d!.id}/complete`, { token, body: { leaseToken: d!.lease_token } }),
      ),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [200, ...Array(9).fill(409)]);
  });
});
