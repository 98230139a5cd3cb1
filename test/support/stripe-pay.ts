import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { providerConnector } from './bridge.js';
import { harness } from './harness.js';
import { newTask } from './pay.js';
import { until } from './receiver.js';
import type { StripeFake } from './stripe-fake.js';

/** What the Stripe pay tests share: a test-mode key, the webhook secret, an account set up to pay through Stripe. */
export const STRIPE_KEY = `sk_test_${randomBytes(12).toString('hex')}`;
export const WHSEC = `whsec_${randomBytes(24).toString('base64')}`;

export interface StripeAccount {
  token: string;
  accountId: string;
  taskId: string;
  connectorId: string;
  /** The connector's key: its webhook path is /v1/pay/webhooks/stripe/<connectorPk>. */
  connectorPk: string;
}

/** An account with the Stripe key in its vault, a stripe connector at the fake, and a task to pay for. */
export async function stripeAccount(fake: StripeFake, key = STRIPE_KEY): Promise<StripeAccount> {
  const a = await harness.account();
  const connectorId = `stripe-${randomBytes(3).toString('hex')}`;
  await providerConnector(
    a.token,
    { name: 'stripe-key', kind: 'bearer', value: key },
    { connectorId, kind: 'stripe', caps: ['pay.charge', 'pay.refund'], endpoint: fake.url, signingSecret: WHSEC },
  );
  const row = await harness.deps.db('connectors').where({ account_id: a.accountId, connector_id: connectorId }).first();
  return { token: a.token, accountId: a.accountId, taskId: await newTask(a.token), connectorId, connectorPk: row.id };
}

/** A mandate backed by the fake's Customer `cus_<acct>` and `paymentMethod` (attached to it in the fake). */
export async function backedMandate(
  acct: StripeAccount,
  fake: StripeFake,
  paymentMethod = 'pm_card_visa',
  maxSpend = 100,
): Promise<any> {
  const customer = `cus_${acct.accountId.replace(/[^A-Za-z0-9]/g, '')}`;
  fake.paymentMethods[paymentMethod] = customer;
  const res = await harness.call('POST', '/v1/pay/mandates', {
    token: acct.token,
    body: {
      taskId: acct.taskId,
      constraints: { maxSpend: { amount: maxSpend, currency: 'USD' } },
      provider: { connectorId: acct.connectorId, customer, paymentMethod },
    },
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

export async function settleUnder(acct: StripeAccount, mandateId: string, amount: number): Promise<any> {
  const res = await harness.call('POST', '/v1/pay/settle', {
    token: acct.token,
    body: { mandateId, taskId: acct.taskId, vendorId: 'PotShop', amount },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.receipt;
}

export async function receipt(acct: { token: string }, receiptId: string): Promise<any> {
  const res = await harness.call('GET', `/v1/pay/receipts/${receiptId}`, { token: acct.token });
  assert.equal(res.status, 200, res.text);
  return res.body.receipt;
}

/** The receipt once `ok` holds for it (the confirm job runs on the pay-provider queue). */
export async function receiptWhen(acct: { token: string }, receiptId: string, ok: (r: any) => boolean) {
  return until(() => receipt(acct, receiptId), ok, 20_000);
}

/** POSTs a signed event to the connector's webhook path, as Stripe would. */
export async function deliver(acct: StripeAccount, event: { body: string; signature: string }) {
  return harness.call('POST', `/v1/pay/webhooks/stripe/${acct.connectorPk}`, {
    raw: event.body,
    headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
  });
}
