import assert from 'node:assert/strict';
import { ReceiptReply } from '../../jobs/pay/mandate-schemas.js';
import { settle } from '../../jobs/pay/settle.js';
import { confirmReceipt, sweepProviderWork } from '../../jobs/pay/confirm.js';
import type { Deps } from '../../shared/deps.js';
import { check } from '../../shared/validation.js';
import { harness } from '../support/harness.js';
import { startStripeFake, type StripeFake } from '../support/stripe-fake.js';
import {
  backedMandate,
  deliver,
  receipt,
  receiptWhen,
  settleUnder,
  STRIPE_KEY,
  stripeAccount,
  WHSEC,
  type StripeAccount,
} from '../support/stripe-pay.js';

/** Settlement through Stripe (a stateful fake speaking its API; the same calls are checked against its OpenAPI). */
describe('pay through Stripe: settlement confirmed after commit, webhooks, retries', function () {
  this.timeout(60_000);
  let fake: StripeFake;
  before(async () => {
    fake = await startStripeFake({ secretKey: STRIPE_KEY });
  });
  after(() => fake.stop());

  const intentsFor = (receiptId: string) =>
    fake.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v1/payment_intents' && r.idempotencyKey === receiptId,
    );
  const createdFor = (receiptId: string) =>
    [...fake.intents.values()].filter((pi) => pi.metadata.awpReceiptId === receiptId);
  const spent = async (acct: StripeAccount, mandateId: string) =>
    (await harness.call('GET', `/v1/pay/mandates/${mandateId}`, { token: acct.token })).body.spent.amount;
  const events = (accountId: string, type: string) => harness.deps.db('events').where({ account_id: accountId, type });

  it(
    'a settlement under a Stripe-backed mandate answers a pending receipt; after commit one PaymentIntent is ' +
      'created off session with the receipt id as Idempotency-Key and the receipt settles',
    async () => {
      const acct = await stripeAccount(fake);
      const m = await backedMandate(acct, fake);
      assert.deepEqual(m.providerBacking, {
        provider: 'stripe',
        connectorId: acct.connectorId,
        customer: m.providerBacking.customer,
        paymentMethod: 'pm_card_visa',
        webhookPath: `/v1/pay/webhooks/stripe/${acct.connectorPk}`,
      });
      const r = await settleUnder(acct, m.mandateId, 12.34);
      assert.deepEqual([r.status, r.provider, r.providerState?.paymentIntent ?? null], ['pending', 'stripe', null]);
      const done = await receiptWhen(acct, r.receiptId, (x) => x.status !== 'pending');
      assert.equal(done.status, 'settled');
      const [pi] = createdFor(r.receiptId);
      assert.deepEqual(done.providerState, { paymentIntent: pi!.id, status: 'succeeded', error: null });
      const [sent] = intentsFor(r.receiptId);
      assert.deepEqual(
        [sent!.body.amount, sent!.body.currency, sent!.body.off_session, sent!.body.confirm, sent!.body.customer],
        ['1234', 'usd', 'true', 'true', m.providerBacking.customer],
      );
      const full = await harness.call('GET', `/v1/pay/receipts/${r.receiptId}`, { token: acct.token });
      assert.deepEqual(check(ReceiptReply, full.body), []);
      assert.equal((await events(acct.accountId, 'pay.settled')).length, 1, 'pay.settled once Stripe said so');
      assert.equal(await spent(acct, m.mandateId), 12.34);
    },
  );

  it("a declined card fails the receipt with Stripe's code, gives the amount back and writes pay.failed", async () => {
    const acct = await stripeAccount(fake);
    const m = await backedMandate(acct, fake, 'pm_card_chargeDeclined');
    const r = await settleUnder(acct, m.mandateId, 20);
    const done = await receiptWhen(acct, r.receiptId, (x) => x.status !== 'pending');
    assert.equal(done.status, 'failed');
    assert.equal(done.providerState.error.code, 'card_declined');
    assert.match(done.providerState.paymentIntent, /^pi_/, 'the declined PaymentIntent is named');
    assert.equal(intentsFor(r.receiptId).length, 1, 'a decline is permanent: not retried');
    assert.equal(await spent(acct, m.mandateId), 0);
    assert.equal((await events(acct.accountId, 'pay.failed')).length, 1);
  });

  it('transient failures (500, 429, a dropped connection) are retried under one key: one PaymentIntent', async () => {
    const acct = await stripeAccount(fake);
    const m = await backedMandate(acct, fake);
    fake.failNext(500, 429, 'reset', 500);
    const r = await settleUnder(acct, m.mandateId, 5);
    const done = await receiptWhen(acct, r.receiptId, (x) => x.status !== 'pending');
    assert.equal(done.status, 'settled');
    const sent = intentsFor(r.receiptId);
    assert.ok(sent.length >= 5, `the failed attempts were retried (${sent.length} requests)`);
    assert.equal(createdFor(r.receiptId).length, 1, 'one PaymentIntent');
  });

  it('a payment Stripe reports processing settles, or fails, by its signed webhook', async () => {
    const acct = await stripeAccount(fake);
    const m = await backedMandate(acct, fake, 'pm_card_processing');
    const [ok, ko] = [await settleUnder(acct, m.mandateId, 7), await settleUnder(acct, m.mandateId, 8)];
    for (const r of [ok, ko]) await receiptWhen(acct, r.receiptId, (x) => x.providerState.status === 'processing');
    const piOf = (r: any) => createdFor(r.receiptId)[0]!;
    const won = await deliver(
      acct,
      fake.event('payment_intent.succeeded', { ...piOf(ok), status: 'succeeded' }, WHSEC),
    );
    assert.deepEqual([won.status, won.body.result, won.body.duplicate], [200, 'receiptUpdated', false]);
    const lost = fake.event(
      'payment_intent.payment_failed',
      { ...piOf(ko), status: 'requires_payment_method', last_payment_error: { code: 'card_declined', message: 'no' } },
      WHSEC,
    );
    assert.equal((await deliver(acct, lost)).body.result, 'receiptUpdated');
    assert.equal((await receipt(acct, ok.receiptId)).status, 'settled');
    assert.deepEqual((await receipt(acct, ko.receiptId)).status, 'failed');
    assert.equal(await spent(acct, m.mandateId), 7, "the failed payment's 8 went back to the mandate");
    const again = await deliver(acct, lost);
    assert.deepEqual([again.status, again.body.duplicate, again.body.result], [200, true, 'unchanged']);
  });

  it('a crash between commit and confirm: the receipt waits pending, the sweep confirms it once', async () => {
    const acct = await stripeAccount(fake);
    const m = await backedMandate(acct, fake);
    // The process "dies" after the settlement commits, before its job reaches Redis.
    const crashed = { ...harness.deps, queues: { queue: () => ({ add: () => Promise.reject(new Error('killed')) }) } };
    const { receipt: row } = await settle(crashed as unknown as Deps, acct.accountId, {
      mandateId: m.mandateId,
      taskId: acct.taskId,
      vendorId: 'PotShop',
      amount: 9,
      currency: 'USD',
      povRef: null,
      evidence: async () => ({ candidate: null, flaggedHiddenFees: [], availability: null }),
    });
    assert.equal(row.status, 'pending');
    assert.equal(intentsFor(row.id).length, 0, 'nothing was asked of Stripe');
    await harness.deps
      .db('pay_receipts')
      .where({ id: row.id })
      .update({ updated_at: harness.deps.db.raw("now() - interval '2 minutes'") });
    const swept = await sweepProviderWork(harness.deps);
    assert.ok(swept.receipts >= 1);
    assert.equal((await receiptWhen(acct, row.id, (x) => x.status !== 'pending')).status, 'settled');
    assert.equal((await sweepProviderWork(harness.deps)).receipts, 0, 'a settled receipt is not swept again');
    // A second confirm of the same receipt (a job given twice) asks nothing more.
    await confirmReceipt(harness.deps, row.id);
    assert.equal(intentsFor(row.id).length, 1);
    assert.equal(createdFor(row.id).length, 1);
  });

  it('a retried pay step (same settle key) and a confirm run twice make one PaymentIntent', async () => {
    const acct = await stripeAccount(fake);
    const m = await backedMandate(acct, fake, 'pm_card_processing');
    const ask = {
      mandateId: m.mandateId,
      taskId: acct.taskId,
      vendorId: 'PotShop',
      amount: 3,
      currency: 'USD',
      povRef: null,
      settleKey: 'run:x:2:start',
      evidence: async () => ({ candidate: null, flaggedHiddenFees: [], availability: null }),
    };
    const first = await settle(harness.deps, acct.accountId, ask);
    const second = await settle(harness.deps, acct.accountId, ask);
    assert.deepEqual([second.replayed, second.receipt.id], [true, first.receipt.id]);
    await Promise.all([confirmReceipt(harness.deps, first.receipt.id), confirmReceipt(harness.deps, first.receipt.id)]);
    await receiptWhen(acct, first.receipt.id, (x) => x.providerState.paymentIntent !== null);
    assert.equal(createdFor(first.receipt.id).length, 1, 'one PaymentIntent for the receipt');
    assert.equal(await spent(acct, m.mandateId), 3, 'drawn once');
  });
});
