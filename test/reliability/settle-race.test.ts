import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { grant, newTask } from '../support/pay.js';

describe('concurrent settlements never exceed the mandate', () => {
  it(
    '100 concurrent settles of 30 against 1,000 settle exactly 33; the rest are refused over budget; the ' +
      'ledger agrees',
    async () => {
      const { token, accountId } = await harness.account();
      const taskId = await newTask(token);
      const m = await grant(token, taskId, { maxSpend: { amount: 1000, currency: 'USD' } });
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          harness.call('POST', '/v1/pay/settle', {
            token,
            body: { mandateId: m.mandateId, taskId, vendorId: `vendor-${i % 7}`, amount: 30 },
          }),
        ),
      );
      const statuses = answers.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, 33, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 422).length, 67);
      assert.ok(answers.filter((r) => r.status === 422).every((r) => r.body.details.reason === 'overBudget'));

      const mandate = (await harness.call('GET', `/v1/pay/mandates/${m.mandateId}`, { token })).body;
      assert.deepEqual([mandate.spent.amount, mandate.remaining.amount, mandate.settlementCount], [990, 10, 33]);
      // Balances are derivable from the ledger rows alone: the grant drawn down equals what vendors were paid, and the
      // mandate's counter.
      const sums = await harness.deps
        .db('pay_ledger_entries')
        .where({ account_id: accountId })
        .select(
          'direction',
          harness.deps.db.raw('sum(amount_minor)::bigint AS total'),
          harness.deps.db.raw('count(*)::int AS n'),
        )
        .groupBy('direction');
      const by = Object.fromEntries(sums.map((s: any) => [s.direction, [Number(s.total), s.n]]));
      assert.deepEqual(by, { credit: [99_000, 33], debit: [99_000, 33] });
      const events = await harness.deps.db('events').where({ account_id: accountId, type: 'pay.settled' });
      assert.equal(events.length, 33, 'one pay.settled per receipt, written with it');
    },
  );
});
