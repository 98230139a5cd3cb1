import assert from 'node:assert/strict';
import { NO_EVIDENCE } from '../../jobs/pay/logic.js';
import { settle } from '../../jobs/pay/settle.js';
import { harness } from '../support/harness.js';
import { grant, newTask } from '../support/pay.js';

describe('settlement service', () => {
  it(
    'a settle key settles once: the same key again (a pay step retried after a crash) gets the first receipt ' +
      'back, and nothing more is drawn',
    async () => {
      const { token, accountId } = await harness.account();
      const taskId = await newTask(token);
      const m = await grant(token, taskId, { maxSpend: { amount: 100, currency: 'USD' } });
      const input = {
        mandateId: m.mandateId,
        taskId,
        vendorId: 'CafeCo',
        amount: 40,
        currency: 'USD',
        povRef: null,
        settleKey: 'run:run_x:1:start',
        evidence: async () => NO_EVIDENCE,
      };
      const first = await settle(harness.deps, accountId, input);
      const retried = await settle(harness.deps, accountId, input);
      assert.deepEqual([first.replayed, retried.replayed, retried.receipt.id], [false, true, first.receipt.id]);
      const other = await settle(harness.deps, accountId, { ...input, settleKey: 'run:run_x:1:wait_2' });
      assert.notEqual(other.receipt.id, first.receipt.id, 'another key is another settlement');
      const row = await harness.deps.db('pay_mandates').where({ id: m.mandateId }).first();
      assert.equal(row.spent_minor, 8000);
      assert.equal(
        (await harness.deps.db('pay_ledger_entries').whereIn('receipt_id', [first.receipt.id, other.receipt.id]))
          .length,
        4,
      );
    },
  );
});
