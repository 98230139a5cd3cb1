import assert from 'node:assert/strict';
import { MandateReply } from '../../jobs/pay/schemas.js';
import { ReceiptReply, RefundReply } from '../../jobs/pay/mandate-schemas.js';
import { ProviderWebhookReply } from '../../jobs/pay/provider-schemas.js';
import { check } from '../../shared/validation.js';
import { harness } from '../support/harness.js';
import { grant, newTask } from '../support/pay.js';
import { startStripeFake, stripeSignature, type StripeFake } from '../support/stripe-fake.js';
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

describe('pay routes of Stripe: backed mandates, refunds, webhooks, receipts', function () {
  this.timeout(60_000);
  let fake: StripeFake;
  let a: StripeAccount;
  let b: StripeAccount;
  before(async () => {
    fake = await startStripeFake({ secretKey: STRIPE_KEY });
    [a, b] = [await stripeAccount(fake), await stripeAccount(fake)];
  });
  after(() => fake.stop());

  /** null: no bearer token. */
  const post = (path: string, body: unknown, token: string | null = a.token) =>
    harness.call('POST', path, { token: token ?? undefined, body });
  const backing = (extra: Record<string, unknown> = {}) => ({
    taskId: a.taskId,
    constraints: { maxSpend: { amount: 50, currency: 'USD' } },
    provider: { connectorId: a.connectorId, customer: 'cus_Owner1', paymentMethod: 'pm_owned1', ...extra },
  });

  describe('POST /v1/pay/mandates with a Stripe backing', () => {
    before(() => {
      fake.paymentMethods.pm_owned1 = 'cus_Owner1';
    });
    it("201: checked with Stripe (the PaymentMethod is the Customer's), shown with its webhook path", async () => {
      const res = await post('/v1/pay/mandates', backing());
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(check(MandateReply, res.body), []);
      assert.equal(res.body.providerBacking.webhookPath, `/v1/pay/webhooks/stripe/${a.connectorPk}`);
      assert.ok(fake.requests.some((r) => r.path === '/v1/payment_methods/pm_owned1'));
    });
    it('400 for a malformed backing, 401 without a token', async () => {
      const bad = await post('/v1/pay/mandates', backing({ customer: 'not-a-customer' }));
      assert.deepEqual([bad.status, bad.body.error], [400, 'invalidPayload']);
      assert.equal((await post('/v1/pay/mandates', backing(), null)).status, 401);
    });
    it("404 for an unknown connector and for another account's", async () => {
      assert.equal((await post('/v1/pay/mandates', backing({ connectorId: 'nope' }))).status, 404);
      const theirs = await post(
        '/v1/pay/mandates',
        { ...backing({ connectorId: a.connectorId }), taskId: b.taskId },
        b.token,
      );
      assert.equal(theirs.status, 404, "b has no connector of that id; a's is not visible");
    });
    it("422 when the PaymentMethod is not that Customer's, or unknown to Stripe", async () => {
      fake.paymentMethods.pm_other1 = 'cus_Someone';
      const other = await post('/v1/pay/mandates', backing({ paymentMethod: 'pm_other1' }));
      assert.deepEqual([other.status, other.body.details?.reason], [422, 'paymentMethodNotCustomers']);
      const unknown = await post('/v1/pay/mandates', backing({ paymentMethod: 'pm_unknown1' }));
      assert.deepEqual([unknown.status, unknown.body.details?.reason], [422, 'resource_missing']);
    });
  });

  describe('POST /v1/pay/refunds and GET /v1/pay/receipts/{receiptId}', () => {
    let settled: any;
    before(async () => {
      const m = await backedMandate(a, fake, 'pm_card_visa', 100);
      const r = await settleUnder(a, m.mandateId, 30);
      settled = await receiptWhen(a, r.receiptId, (x) => x.status === 'settled');
    });

    it('201: a partial refund at Stripe under the refund id as key, pending until its webhook says so', async () => {
      const res = await post('/v1/pay/refunds', { receiptId: settled.receiptId, amount: 10, reason: 'duplicate' });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(check(RefundReply, res.body), []);
      const refund = res.body.refund;
      assert.deepEqual([refund.status, refund.amount], ['pending', { amount: 10, currency: 'USD' }]);
      const sent = await receiptWhen(a, settled.receiptId, (x) => x.refunds[0]?.providerRef !== null);
      const re = fake.refunds.get(sent.refunds[0].providerRef)!;
      assert.deepEqual([re.amount, re.metadata.awpRefundId], [1000, refund.refundId]);
      assert.ok(fake.requests.some((r) => r.path === '/v1/refunds' && r.idempotencyKey === refund.refundId));
      const hook = await deliver(a, fake.event('refund.updated', { ...re, status: 'succeeded' }, WHSEC));
      assert.deepEqual([hook.status, hook.body.result], [200, 'refundUpdated']);
      const full = await harness.call('GET', `/v1/pay/receipts/${settled.receiptId}`, { token: a.token });
      assert.deepEqual(check(ReceiptReply, full.body), []);
      assert.deepEqual(
        [full.body.receipt.refunds[0].status, full.body.receipt.refunded, full.body.receipt.providerState.status],
        ['succeeded', { amount: 10, currency: 'USD' }, 'succeeded'],
      );
      assert.equal(
        (await harness.deps.db('events').where({ account_id: a.accountId, type: 'pay.refunded' })).length,
        1,
      );
    });

    it('422 overRefund past what is left; a failed refund gives its amount back to what may be refunded', async () => {
      const over = await post('/v1/pay/refunds', { receiptId: settled.receiptId, amount: 20.01 });
      assert.deepEqual(
        [over.status, over.body.details?.reason, over.body.details?.refundable],
        [422, 'overRefund', 20],
      );
      const rest = await post('/v1/pay/refunds', { receiptId: settled.receiptId });
      assert.deepEqual([rest.status, rest.body.refund.amount.amount], [201, 20]);
      const sent = await receiptWhen(a, settled.receiptId, (x) => x.refunds[1]?.providerRef !== null);
      const re = fake.refunds.get(sent.refunds[1].providerRef)!;
      // Stripe failed it: its amount is refundable again there too.
      fake.intents.get(re.payment_intent)!.amount_refunded -= re.amount;
      await deliver(
        a,
        fake.event('refund.failed', { ...re, status: 'failed', failure_reason: 'expired_or_canceled_card' }, WHSEC),
      );
      const after = await receipt(a, settled.receiptId);
      assert.deepEqual([after.refunds[1].status, after.refunded.amount], ['failed', 10]);
    });

    it('charge.refunded settles the refunds it lists; a redelivered refund event changes nothing', async () => {
      const res = await post('/v1/pay/refunds', { receiptId: settled.receiptId, amount: 5 });
      assert.equal(res.status, 201, res.text);
      const sent = await receiptWhen(a, settled.receiptId, (x) => x.refunds[2]?.providerRef !== null);
      const re = { ...fake.refunds.get(sent.refunds[2].providerRef)!, status: 'succeeded' };
      const pi = fake.intents.get(sent.providerState.paymentIntent)!;
      const charge = { id: pi.latest_charge, object: 'charge', payment_intent: pi.id, refunds: { data: [re] } };
      const hook = await deliver(a, fake.event('charge.refunded', charge, WHSEC));
      assert.deepEqual([hook.status, hook.body.result], [200, 'refundUpdated']);
      const again = await deliver(a, fake.event('refund.updated', re, WHSEC));
      assert.deepEqual([again.status, again.body.result], [200, 'unchanged'], 'a new event id, nothing to change');
      const after = await receipt(a, settled.receiptId);
      assert.deepEqual([after.refunds[2].status, after.refunded.amount], ['succeeded', 15]);
    });

    it("400 bad body, 401 without a token, 404 unknown or another account's, 409 for a pending receipt", async () => {
      assert.equal((await post('/v1/pay/refunds', { receiptId: settled.receiptId, amount: -1 })).status, 400);
      assert.equal((await post('/v1/pay/refunds', { amount: 1 })).status, 400);
      assert.equal((await post('/v1/pay/refunds', { receiptId: settled.receiptId }, null)).status, 401);
      assert.equal((await harness.call('GET', `/v1/pay/receipts/${settled.receiptId}`)).status, 401);
      assert.equal((await post('/v1/pay/refunds', { receiptId: 'rcpt_nope' })).status, 404);
      assert.equal((await post('/v1/pay/refunds', { receiptId: settled.receiptId }, b.token)).status, 404);
      assert.equal(
        (await harness.call('GET', `/v1/pay/receipts/${settled.receiptId}`, { token: b.token })).status,
        404,
      );
      const m = await backedMandate(a, fake, 'pm_card_processing', 100);
      const pending = await settleUnder(a, m.mandateId, 1);
      const res = await post('/v1/pay/refunds', { receiptId: pending.receiptId });
      assert.deepEqual([res.status, res.body.details?.status], [409, 'pending']);
    });

    it('refunds a ledger receipt at once, with the reversed ledger entries', async () => {
      const taskId = await newTask(a.token);
      const m = await grant(a.token, taskId);
      const paid = await post('/v1/pay/settle', { mandateId: m.mandateId, taskId, vendorId: 'PotShop', amount: 4 });
      const res = await post('/v1/pay/refunds', { receiptId: paid.body.receipt.receiptId, amount: 1.5 });
      assert.deepEqual([res.status, res.body.refund.status], [201, 'succeeded']);
      const entries = await harness.deps.db('pay_ledger_entries').where({ receipt_id: paid.body.receipt.receiptId });
      assert.equal(entries.length, 4);
      const sum = (dir: string) =>
        entries.filter((e: any) => e.direction === dir).reduce((n: number, e: any) => n + Number(e.amount_minor), 0);
      assert.equal(sum('debit'), sum('credit'), 'debits still equal credits');
    });
  });

  describe('POST /v1/pay/webhooks/stripe/{connectorId}', () => {
    const path = () => `/v1/pay/webhooks/stripe/${a.connectorPk}`;
    const raw = (body: string, signature?: string) =>
      harness.call('POST', path(), {
        raw: body,
        headers: { 'content-type': 'application/json', ...(signature ? { 'stripe-signature': signature } : {}) },
      });
    it('200 for a signed event, once: a redelivery is a duplicate', async () => {
      const e = fake.event('customer.created', { id: 'cus_X', object: 'customer' }, WHSEC);
      const first = await deliver(a, e);
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(check(ProviderWebhookReply, first.body), []);
      assert.deepEqual([first.body.duplicate, first.body.result], [false, 'ignored']);
      assert.equal((await deliver(a, e)).body.duplicate, true);
    });
    it('401 unsigned, forged (another secret), or outside the 300 s tolerance (a replay)', async () => {
      const e = fake.event('customer.created', { id: 'cus_Y', object: 'customer' }, WHSEC);
      assert.equal((await raw(e.body)).status, 401);
      assert.equal((await raw(e.body, stripeSignature('whsec_other', e.body))).status, 401);
      const old = Math.floor(Date.now() / 1000) - 301;
      assert.equal((await raw(e.body, stripeSignature(WHSEC, e.body, old))).status, 401);
      assert.equal((await raw(e.body.replace('cus_Y', 'cus_Z'), e.signature)).status, 401, 'a body changed');
    });
    it('400 for a body that is not an event, 404 for an unknown connector', async () => {
      const body = JSON.stringify({ nope: true });
      assert.equal((await raw(body, stripeSignature(WHSEC, body))).status, 400);
      const e = fake.event('customer.created', { id: 'cus_W' }, WHSEC);
      const res = await harness.call('POST', '/v1/pay/webhooks/stripe/con_unknown', {
        raw: e.body,
        headers: { 'content-type': 'application/json', 'stripe-signature': e.signature },
      });
      assert.equal(res.status, 404);
    });
    it("cross-account: another account's connector cannot move this account's receipt", async () => {
      const m = await backedMandate(a, fake, 'pm_card_processing', 100);
      const r = await settleUnder(a, m.mandateId, 2);
      const seen = await receiptWhen(a, r.receiptId, (x) => x.providerState.paymentIntent !== null);
      const pi = fake.intents.get(seen.providerState.paymentIntent)!;
      const forged = fake.event('payment_intent.succeeded', { ...pi, status: 'succeeded' }, WHSEC);
      const res = await deliver(b, forged);
      assert.deepEqual([res.status, res.body.result], [200, 'noReceipt']);
      assert.equal((await receipt(a, r.receiptId)).status, 'pending');
    });
  });
});
