import assert from 'node:assert/strict';
import { checkEventPayload } from '../../jobs/events/registry.js';
import { harness } from '../support/harness.js';
import { member } from '../support/approvers.js';
import { grant, newTask, tamper, verifyOffline } from '../support/pay.js';
import { startReceiver, until } from '../support/receiver.js';
import { pollUntilRest, seedCatalog } from '../support/runs.js';

describe('pay in a run: buy after a choice, under a mandate, sealed into a proof pack', () => {
  let token: string;
  let accountId: string;
  before(async () => {
    ({ token, accountId } = await harness.account());
    await seedCatalog(accountId);
  });

  /** A run of the task that rests at a choice of espresso machines. */
  async function choose(taskId: string) {
    const first = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: {
        request: 'shortlist espresso machines under $250 so I can choose one',
        conversationId: `conv-pay-${taskId}`,
        taskId,
      },
    });
    assert.equal(first.body.status, 'NEEDS_INPUT', first.text);
    return first.body;
  }

  it(
    'with a mandate on the task, buy continues into pay: settled, the receipt cited in the result and the ' +
      'proof card, the pack sealed; pay.settled is delivered',
    async () => {
      const secrets: string[] = [];
      const rx = await startReceiver(() => secrets);
      try {
        const sub = await harness.call('POST', '/v1/event-subscriptions', {
          token,
          body: { endpoint: rx.url, events: ['pay.settled'] },
        });
        secrets.push(sub.body.secret);
        const taskId = await newTask(token);
        const m = await grant(token, taskId, {
          maxSpend: { amount: 300, currency: 'USD' },
          allowedVendors: ['CafeCo', 'Brewhouse'],
        });
        const first = await choose(taskId);
        const compact = first.results.hunt.choices.find((c: any) => c.title === 'Espresso machine Compact');

        const answer = await harness.call('POST', '/v1/orchestrator/run', {
          token,
          body: {
            request: 'buy that one',
            conversationId: `conv-pay-${taskId}`,
            itemId: compact.itemId,
            action: 'buy',
          },
        });
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.body.status, 'ready', answer.text);
        assert.deepEqual(answer.body.route, ['hunt', 'pay']);
        const pay = answer.body.results.pay;
        assert.deepEqual(
          [
            pay.paid,
            pay.receipt.amount,
            pay.receipt.currency,
            pay.receipt.vendorId,
            pay.receipt.runId,
            pay.mandate.remaining,
          ],
          [true, 149, 'USD', 'CafeCo', first.runId, { amount: 151, currency: 'USD' }],
        );
        assert.equal(pay.receipt.cite, `awp:receipt:${pay.receipt.receiptId}#v1`);
        assert.equal(pay.receipt.povRef, 'https://shop.example/compact');
        assert.match(pay.packId, /^pp_/);

        const run = (await harness.call('GET', `/v1/runs/${first.runId}`, { token })).body.run;
        assert.deepEqual(
          run.routing.extensions.map((e: any) => [e.action, e.added]),
          [['buy', 'pay']],
        );
        const exported = await harness.call('POST', `/v1/audit/proofCards/${answer.body.proofCard.cardId}/export`, {
          token,
          body: { format: 'service/v1' },
        });
        assert.ok(
          exported.body.ledgerEntry.decision.evidence.some(
            (e: any) => e.domain === 'pay' && e.source === pay.receipt.cite,
          ),
          "the proof card's evidence cites the receipt",
        );
        assert.equal(
          (await harness.call('GET', `/v1/pay/mandates/${m.mandateId}`, { token })).body.remaining.amount,
          151,
        );
        assert.equal((await harness.call('GET', `/v1/tasks/${taskId}`, { token })).body.task.status, 'completed');

        const pack = (await harness.call('GET', `/v1/audit/proofPacks/${pay.packId}`, { token })).body.pack;
        assert.deepEqual(
          [pack.status, pack.runId, pack.cite],
          ['sealed', first.runId, `awp:proofPack:${pay.packId}#v1`],
        );
        const receipts = pack.sections.find((s: any) => s.kind === 'receipts');
        assert.deepEqual([receipts.receiptId, receipts.count], [pay.receipt.receiptId, 1]);
        const jwks = (await harness.call('GET', '/.well-known/jwks.json')).body;
        assert.deepEqual(verifyOffline(pack, jwks), [], 'a third party verifies it with the JWKS alone');
        assert.deepEqual(verifyOffline(tamper(pack, ['sections', 4, 'receipts', 0, 'vendorId']), jwks), ['receipts']);

        await until(
          () => rx.received.length,
          (n) => n >= 1,
        );
        const hook = rx.received[0]!.body;
        assert.equal(hook.type, 'pay.settled');
        assert.deepEqual(
          [hook.data.receiptId, hook.data.mandateId, hook.data.amount, hook.data.runId],
          [pay.receipt.receiptId, m.mandateId, 149, first.runId],
        );
        assert.deepEqual(checkEventPayload('pay.settled', hook.data), []);
        assert.equal(rx.rejected.length, 0, 'every delivery verified with standardwebhooks');
      } finally {
        await rx.stop();
      }
    },
  );

  it(
    'without a mandate the run rests at awaitingApproval naming it, and no receipt is issued; granting one and ' +
      'approving settles',
    async () => {
      const taskId = await newTask(token);
      const first = await choose(taskId);
      const resumed = await harness.call('POST', `/v1/runs/${first.runId}/resume`, {
        token,
        body: { itemId: first.results.hunt.choices[0].itemId, action: 'buy' },
      });
      assert.equal(resumed.status, 202, resumed.text);
      const waiting = await pollUntilRest(token, first.runId);
      assert.equal(waiting.status, 'awaitingApproval');
      assert.equal(waiting.waitpoint.payload.reason, 'mandateMissing');
      assert.match(
        waiting.waitpoint.payload.message,
        new RegExp(`no mandate covers this payment: task ${taskId} has no active mandate`),
      );
      assert.equal(waiting.result.results.pay.paid, false);
      assert.equal((await harness.deps.db('pay_receipts').where({ run_id: first.runId })).length, 0);

      // The run's own submitter can neither issue its mandate nor approve it: another member must.
      const own = await harness.call('POST', '/v1/pay/mandates', {
        token,
        body: { taskId, constraints: { maxSpend: { amount: 500, currency: 'USD' } }, issuer: { entityId: 'self' } },
      });
      assert.equal(own.body.error, 'selfApproval', own.text);
      assert.equal(
        (await harness.call('POST', `/v1/runs/${first.runId}/resume`, { token, body: { approved: true } })).body.error,
        'selfApproval',
      );
      const approver = await member(accountId, 'approver');
      const m = await grant(approver.token, taskId, { maxSpend: { amount: 500, currency: 'USD' } });
      const approved = await harness.call('POST', `/v1/runs/${first.runId}/resume`, {
        token: approver.token,
        body: { approved: true },
      });
      assert.equal(approved.status, 202, approved.text);
      const done = await pollUntilRest(token, first.runId);
      assert.equal(done.status, 'ready');
      const receipt = done.result.results.pay.receipt;
      assert.equal(receipt.mandateId, m.mandateId);
      assert.equal((await harness.deps.db('pay_receipts').where({ run_id: first.runId })).length, 1);
      const pack = await harness.call('GET', `/v1/audit/proofPacks/${done.result.results.pay.packId}`, { token });
      assert.equal(pack.status, 200, 'the pack is sealed when the run finishes');
    },
  );

  it(
    'a run that only pays (metadata.payment) settles under the mandate it names; a malformed payment fails the ' +
      'run naming the field',
    async () => {
      const taskId = await newTask(token);
      const m = await grant(token, taskId, { maxSpend: { amount: 400, currency: 'USD' } });
      const res = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        body: {
          request: 'pay the electrician the 300 dollars we agreed',
          metadata: { mandateId: m.mandateId, payment: { vendorId: 'Sparks Ltd', amount: 300, povRef: 'quote-5' } },
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        [res.body.route, res.body.status, res.body.results.pay.receipt.amount, res.body.results.pay.receipt.taskId],
        [['pay'], 'ready', 300, taskId],
      );
      assert.equal(
        (await harness.call('GET', `/v1/audit/proofPacks/${res.body.results.pay.packId}`, { token })).body.pack
          .sections[4].receiptId,
        res.body.results.pay.receipt.receiptId,
      );
      const bad = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        body: {
          request: 'pay the electrician',
          metadata: { mandateId: m.mandateId, payment: { vendorId: 'Sparks Ltd', amount: 'lots' } },
        },
      });
      assert.equal(bad.body.status, 'failed');
      assert.match(bad.body.error, /metadata\.payment\/amount/);
    },
  );

  it(
    'a mandate that refuses (vendor not allowed) rests the ' + 'run naming the rule; decline ends it without paying',
    async () => {
      const taskId = await newTask(token);
      await grant(token, taskId, { allowedVendors: ['SomeoneElse'] });
      const first = await choose(taskId);
      await harness.call('POST', `/v1/runs/${first.runId}/resume`, {
        token,
        body: { itemId: first.results.hunt.choices[0].itemId, action: 'buy' },
      });
      const waiting = await pollUntilRest(token, first.runId);
      assert.deepEqual([waiting.status, waiting.waitpoint.payload.reason], ['awaitingApproval', 'vendorNotAllowed']);
      await harness.call('POST', `/v1/runs/${first.runId}/resume`, { token, body: { action: 'decline' } });
      const done = await pollUntilRest(token, first.runId);
      assert.deepEqual(
        [done.status, done.result.results.pay.paid, done.result.results.pay.reason],
        ['ready', false, 'declined'],
      );
      assert.equal((await harness.deps.db('pay_receipts').where({ run_id: first.runId })).length, 0);
      assert.equal(
        (await harness.call('GET', `/v1/audit/proofPacks/pp_${first.runId.slice(4)}`, { token })).status,
        404,
        'no receipts, no automatic pack',
      );
    },
  );
});
