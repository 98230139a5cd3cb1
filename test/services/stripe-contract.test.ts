import assert from 'node:assert/strict';
import {
  paymentIntentNow,
  paymentMethodOwner,
  stripeAdapter,
  stripeClient,
} from '../../jobs/bridge/providers/stripe.js';
import type { ProviderCallContext } from '../../jobs/bridge/providers/adapter.js';
import { harness } from '../support/harness.js';
import { startPrism, type PrismMock } from '../support/prism.js';
import { documentOrigin, providerDocument, writeSlice, type Operation } from '../support/openapi-slice.js';

/** What the adapter and pay call (method, path): keep in step with jobs/bridge/providers/stripe.ts. */
const STRIPE_OPERATIONS: Operation[] = [
  ['post', '/v1/payment_intents'],
  ['get', '/v1/payment_intents/{intent}'],
  ['post', '/v1/refunds'],
  ['get', '/v1/refunds/{refund}'],
  ['get', '/v1/payment_methods/{payment_method}'],
];
const origin = documentOrigin(providerDocument('stripe.com'));

/**
 * Every request the Stripe adapter makes, sent to Prism serving Stripe's published OpenAPI document (the slice of it
 * the adapter uses, test/fixtures/providers/README.md) with `--errors`: a request that breaks the contract is
 * refused there (422 and a violation in Prism's log), and fails here. The flow tests make the same calls against the
 * stateful fake (test/support/stripe-fake.ts).
 */
describe(`the Stripe adapter's requests against Stripe's OpenAPI document ${origin.version} (Prism)`, function () {
  this.timeout(300_000);
  let prism: PrismMock;
  let ctx: ProviderCallContext;
  before(async () => {
    prism = await startPrism(writeSlice('stripe.com', STRIPE_OPERATIONS));
    ctx = {
      deps: harness.deps,
      connector: { endpoint: prism.url } as ProviderCallContext['connector'],
      secret: 'sk_test_contract',
      idempotencyKey: 'rcpt_contract1',
    };
  });
  after(async () => prism?.stop());

  it('charge (a PaymentIntent confirmed off session), refund, PaymentMethod and PaymentIntent reads pass', async () => {
    const charged = await stripeAdapter.call(
      'pay.charge',
      {
        amount: 1234,
        currency: 'USD',
        customer: 'cus_Contract1',
        paymentMethod: 'pm_card_visa',
        description: 'PotShop (rcpt_contract1)',
        metadata: { awpReceiptId: 'rcpt_contract1', awpMandateId: 'mnd_1', awpVendorId: 'PotShop' },
      },
      ctx,
    );
    // Prism answers with an example PaymentIntent (any status): what matters is that it answered one.
    assert.equal(typeof charged.providerRef, 'string', JSON.stringify(charged));
    assert.ok(!charged.error || !charged.error.transient, JSON.stringify(charged.error));
    const refunded = await stripeAdapter.call(
      'pay.refund',
      { paymentIntent: 'pi_1', amount: 500, reason: 'requested_by_customer', metadata: { awpRefundId: 'rfnd_1' } },
      { ...ctx, idempotencyKey: 'rfnd_1' },
    );
    assert.equal(typeof refunded.providerRef, 'string', JSON.stringify(refunded));
    const owner = await paymentMethodOwner(ctx, 'pm_card_visa');
    assert.ok(!('error' in owner), JSON.stringify(owner));
    const now = await paymentIntentNow(ctx, 'pi_1');
    assert.equal(typeof now.providerRef, 'string');
    assert.deepEqual(prism.violations(), [], 'Prism found no request breaking the contract');
  });

  it('is a real check: a request that breaks the contract is refused (422) and logged', async () => {
    const client = await stripeClient({ endpoint: prism.url }, 'sk_test_contract', true);
    await assert.rejects(
      client.paymentIntents.create({ amount: 'a lot' as unknown as number, currency: 'usd' }),
      (err: { statusCode?: number }) => err.statusCode === 422,
    );
    assert.ok(prism.violations().some((l) => /amount/.test(l)));
  });
});
