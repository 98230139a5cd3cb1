import assert from 'node:assert/strict';
import Stripe from 'stripe';
import type { ProviderCallContext } from '../../jobs/bridge/providers/adapter.js';
import { intentOutcome, refundOutcome, stripeAdapter, stripeFailure } from '../../jobs/bridge/providers/stripe.js';
import { EgressRefused } from '../../shared/http/egress.js';

/** Stripe's errors → the adapter's answers: only what Stripe documents as safe to retry is transient. */
describe('Stripe adapter: error codes and statuses', () => {
  const E = Stripe.errors;
  const raw = (extra: Record<string, unknown>) => ({ message: 'Stripe said no', ...extra }) as never;

  it('card errors are permanent, named by the decline code when there is one', () => {
    const declined = stripeFailure(
      new E.StripeCardError(raw({ code: 'card_declined', decline_code: 'insufficient_funds' })),
    );
    assert.deepEqual([declined.code, declined.transient], ['insufficient_funds', false]);
    assert.match(declined.message, /insufficient funds/);
    const auth = stripeFailure(new E.StripeCardError(raw({ code: 'authentication_required' })));
    assert.deepEqual([auth.code, auth.transient], ['authentication_required', false]);
  });

  it('429, 5xx, lock_timeout, a key in use and lost connections are transient', () => {
    const cases = [
      new E.StripeRateLimitError(raw({ statusCode: 429 })),
      new E.StripeAPIError(raw({ statusCode: 503 })),
      new E.StripeAPIError(raw({})),
      new E.StripeInvalidRequestError(raw({ statusCode: 409, code: 'lock_timeout' })),
      new E.StripeIdempotencyError(raw({ statusCode: 409, code: 'idempotency_key_in_use' })),
      new E.StripeConnectionError(raw({ detail: new Error('ECONNRESET') })),
    ];
    assert.deepEqual(
      cases.map((e) => stripeFailure(e).transient),
      cases.map(() => true),
    );
  });

  it('bad keys, permissions, unknown objects and refused egress are permanent', () => {
    const cases: Array<[Error, string]> = [
      [new E.StripeAuthenticationError(raw({ statusCode: 401 })), 'authentication'],
      [new E.StripePermissionError(raw({ statusCode: 403 })), 'permission'],
      [new E.StripeInvalidRequestError(raw({ statusCode: 404, code: 'resource_missing' })), 'resource_missing'],
      [new E.StripeConnectionError(raw({ detail: new EgressRefused('refused') })), 'egressRefused'],
    ];
    for (const [err, code] of cases)
      assert.deepEqual([stripeFailure(err).code, stripeFailure(err).transient], [code, false]);
    assert.throws(() => stripeFailure(new TypeError('a bug')), TypeError, 'not a Stripe error: thrown on');
  });

  it('reads PaymentIntent and Refund statuses as paid, under way or not', () => {
    assert.deepEqual(
      ['succeeded', 'processing', 'requires_capture', 'requires_payment_method', 'requires_action', 'canceled'].map(
        intentOutcome,
      ),
      ['succeeded', 'pending', 'pending', 'failed', 'failed', 'failed'],
    );
    assert.deepEqual(['succeeded', 'pending', 'requires_action', 'failed', 'canceled', null].map(refundOutcome), [
      'succeeded',
      'pending',
      'pending',
      'failed',
      'failed',
      'pending',
    ]);
  });

  it('sends through the egress client: a loopback endpoint is refused unless private egress is allowed', async () => {
    const ctx = {
      deps: { config: { AWP_ALLOW_PRIVATE_EGRESS: false } },
      connector: { endpoint: 'http://127.0.0.1:9' },
      secret: 'sk_test_egress',
      idempotencyKey: 'rcpt_egress',
    } as unknown as ProviderCallContext;
    const ask = { amount: 100, currency: 'usd', customer: 'cus_1', paymentMethod: 'pm_card_visa' };
    const result = await stripeAdapter.call('pay.charge', ask, ctx);
    assert.deepEqual([result.status, result.error?.code, result.error?.transient], ['failed', 'egressRefused', false]);
  });
});
