/**
 * Stripe (issue 31), through the official `stripe` SDK: `pay.charge` is a PaymentIntent created and confirmed off
 * session with the saved PaymentMethod of a Customer, `pay.refund` a Refund of one. The connector's `endpoint` is the
 * API's base URL (https://api.stripe.com; a local fake or Prism in tests), its credential the secret key, its signing
 * secret the webhook endpoint's `whsec_…`. Every request goes out through the guarded egress client; every POST
 * carries the caller's idempotency key, so a retried charge is one PaymentIntent.
 */
import type Stripe from 'stripe';
import { EgressRefused } from '../../../shared/http/egress.js';
import type { ConnectorRow } from '../connectors-repository.js';
import type { ProviderAdapter, ProviderCallContext, ProviderCallback, ProviderResult } from './adapter.js';
import { egressFetchFor } from './sdk-fetch.js';
import { onFirstUse } from '../../../shared/on-first-use.js';

/** Stripe's replay window for `Stripe-Signature` (its SDK's default, and what its docs tell endpoints to use). */
export const STRIPE_SIGNATURE_TOLERANCE_S = 300;
/** Retries of one call inside the SDK (connection errors, 409, 429, 5xx, `Stripe-Should-Retry`); later ones queue. */
const MAX_NETWORK_RETRIES = 2;
const TIMEOUT_MS = 20_000;
/** A PaymentIntent with its charges is a few kB; anything near this is not an answer we read. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** The SDK (about 20 MB), loaded on first use. */
const sdk = onFirstUse('the Stripe SDK', async () => (await import('stripe')).default);
export const loadStripe = sdk.load;

/** A client for the connector: its endpoint as host, port and protocol, its secret key, the egress client. */
export async function stripeClient(
  connector: Pick<ConnectorRow, 'endpoint'>,
  secret: string,
  allowPrivate: boolean,
): Promise<Stripe> {
  const url = new URL(connector.endpoint);
  const Stripe = await loadStripe();
  return new Stripe(secret, {
    host: url.hostname,
    port: url.port || (url.protocol === 'http:' ? 80 : 443),
    protocol: url.protocol === 'http:' ? 'http' : 'https',
    httpClient: Stripe.createFetchHttpClient(
      egressFetchFor(allowPrivate, { timeoutMs: TIMEOUT_MS, maxBytes: MAX_ANSWER_BYTES }) as typeof fetch,
    ),
    maxNetworkRetries: MAX_NETWORK_RETRIES,
    timeout: TIMEOUT_MS,
    telemetry: false,
    appInfo: { name: 'awp' },
  });
}

/** Stripe's decline and request codes in words a client can act on. */
const CODE_MESSAGES: Record<string, string> = {
  card_declined: 'the card was declined',
  insufficient_funds: 'the card has insufficient funds',
  expired_card: 'the card has expired',
  incorrect_cvc: "the card's security code is incorrect",
  processing_error: 'the card could not be processed',
  authentication_required: 'the bank asks the cardholder to authenticate: an off-session payment cannot',
  resource_missing: 'Stripe does not know the customer, payment method or payment named',
  charge_already_refunded: 'the payment was already refunded in full',
  amount_too_large: 'the amount is more than the payment left to refund',
  payment_intent_unexpected_state: 'the payment is not in a state that allows this',
  idempotency_key_in_use: 'the same request is still being processed by Stripe',
};

type ProviderError = NonNullable<ProviderResult['error']>;

/** The SDK's error classes by their documented `type` (`StripeCardError`…), so reading one needs no SDK loaded. */
const isType = (e: Stripe.errors.StripeError, type: string) => (e as { type: string }).type === type;

/** A thrown SDK error → the service's answer: transient only for what Stripe documents as safe to retry. */
export function stripeFailure(err: unknown): ProviderError {
  const type = (err as { type?: unknown } | null)?.type;
  if (!(err instanceof Error) || typeof type !== 'string' || !type.startsWith('Stripe')) throw err;
  const e = err as Stripe.errors.StripeError;
  if (isType(e, 'StripeConnectionError')) {
    if (e.detail instanceof EgressRefused)
      return { code: 'egressRefused', message: `Stripe endpoint refused: ${e.detail.message}`, transient: false };
    return { code: 'connection', message: 'Stripe could not be reached; retried later', transient: true };
  }
  const code = e.decline_code && CODE_MESSAGES[e.decline_code] ? e.decline_code : (e.code ?? e.type);
  const said = CODE_MESSAGES[code] ?? (e.message || 'Stripe refused the request');
  if (isType(e, 'StripeRateLimitError') || e.statusCode === 429 || e.code === 'lock_timeout')
    return { code: 'rateLimited', message: 'Stripe asked to slow down; retried later', transient: true };
  // An api_error without a status is one the SDK made of an answer it could not read (a proxy's page, a cut body).
  if ((e.statusCode ?? 0) >= 500 || (isType(e, 'StripeAPIError') && e.statusCode === undefined))
    return { code: 'stripeUnavailable', message: 'Stripe had an internal error; retried later', transient: true };
  if (e.code === 'idempotency_key_in_use') return { code, message: said, transient: true };
  if (isType(e, 'StripeAuthenticationError'))
    return { code: 'authentication', message: "Stripe refused the connector's secret key", transient: false };
  if (isType(e, 'StripePermissionError'))
    return { code: 'permission', message: "the connector's key may not do this at Stripe", transient: false };
  return { code, message: said, transient: false };
}

/** What the service keeps of a PaymentIntent (no client_secret, no card details). */
export function intentAnswer(pi: Stripe.PaymentIntent): Record<string, unknown> {
  return {
    id: pi.id,
    status: pi.status,
    amount: pi.amount,
    currency: pi.currency,
    latestCharge: typeof pi.latest_charge === 'string' ? pi.latest_charge : (pi.latest_charge?.id ?? null),
    lastError: pi.last_payment_error?.code ?? null,
  };
}

/** A PaymentIntent's status in the adapter's words: paid, on its way (webhook to follow), or not paid. */
export function intentOutcome(status: string): ProviderResult['status'] {
  if (status === 'succeeded') return 'succeeded';
  if (status === 'processing' || status === 'requires_capture') return 'pending';
  return 'failed';
}

/** A Refund's status in the adapter's words. */
export function refundOutcome(status: string | null): ProviderResult['status'] {
  if (status === 'succeeded') return 'succeeded';
  if (status === 'failed' || status === 'canceled') return 'failed';
  return 'pending';
}

const str = (v: unknown, name: string): string => {
  if (typeof v !== 'string' || !v) throw new TypeError(`stripe: ${name} is required`);
  return v;
};
const minor = (v: unknown): number => {
  if (!Number.isSafeInteger(v) || (v as number) <= 0) throw new TypeError('stripe: amount is a positive integer');
  return v as number;
};

async function charge(client: Stripe, input: Record<string, unknown>, ctx: ProviderCallContext) {
  const pi = await client.paymentIntents.create(
    {
      amount: minor(input.amount),
      currency: str(input.currency, 'currency').toLowerCase(),
      customer: str(input.customer, 'customer'),
      payment_method: str(input.paymentMethod, 'paymentMethod'),
      off_session: true,
      confirm: true,
      ...(typeof input.description === 'string' ? { description: input.description } : {}),
      metadata: (input.metadata ?? {}) as Record<string, string>,
    },
    { idempotencyKey: ctx.idempotencyKey },
  );
  const status = intentOutcome(pi.status);
  return {
    status,
    providerRef: pi.id,
    answer: intentAnswer(pi),
    ...(status === 'failed'
      ? { error: { code: pi.status, message: `the payment is ${pi.status.replace(/_/g, ' ')}`, transient: false } }
      : {}),
  };
}

async function refund(client: Stripe, input: Record<string, unknown>, ctx: ProviderCallContext) {
  const re = await client.refunds.create(
    {
      payment_intent: str(input.paymentIntent, 'paymentIntent'),
      amount: minor(input.amount),
      ...(typeof input.reason === 'string' ? { reason: input.reason as Stripe.RefundCreateParams.Reason } : {}),
      metadata: (input.metadata ?? {}) as Record<string, string>,
    },
    { idempotencyKey: ctx.idempotencyKey },
  );
  const status = refundOutcome(re.status);
  return {
    status,
    providerRef: re.id,
    answer: { id: re.id, status: re.status, amount: re.amount, paymentIntent: re.payment_intent },
    ...(status === 'failed'
      ? { error: { code: re.failure_reason ?? 'refundFailed', message: 'the refund failed', transient: false } }
      : {}),
  };
}

function clientOf(ctx: ProviderCallContext): Promise<Stripe> {
  if (!ctx.secret) throw new TypeError('stripe: the connector has no credential (its secret key)');
  return stripeClient(ctx.connector, ctx.secret, ctx.deps.config.AWP_ALLOW_PRIVATE_EGRESS);
}

/** A Stripe event as webhooks deliver it, verified (Stripe-Signature over the raw body, within the tolerance). */
export function verifyStripeEvent(callback: Pick<ProviderCallback, 'rawBody' | 'headers'>, secret: string) {
  const header = callback.headers['stripe-signature'];
  const Stripe = sdk.get();
  if (!header) throw new Stripe.errors.StripeSignatureVerificationError('', callback.rawBody, { message: 'unsigned' });
  return Stripe.webhooks.constructEvent(callback.rawBody, header, secret, STRIPE_SIGNATURE_TOLERANCE_S);
}

export const stripeAdapter: ProviderAdapter = {
  kind: 'stripe',
  capabilities: ['pay.charge', 'pay.refund'],
  async call(capability, input, ctx) {
    const client = await clientOf(ctx);
    try {
      if (capability === 'pay.charge') return await charge(client, input, ctx);
      if (capability === 'pay.refund') return await refund(client, input, ctx);
    } catch (err) {
      const error = stripeFailure(err);
      // A declined card still made a PaymentIntent: its id names what Stripe refused.
      const pi = (err as { payment_intent?: Stripe.PaymentIntent }).payment_intent;
      return { status: 'failed', providerRef: pi?.id ?? null, answer: pi ? intentAnswer(pi) : {}, error };
    }
    throw new TypeError(`stripe does not do ${capability}`);
  },
  load: async () => void (await loadStripe()),
  verifyCallback(callback, signingSecret) {
    try {
      return { ok: true, externalId: verifyStripeEvent(callback, signingSecret).id };
    } catch (err) {
      return { ok: false, reason: err instanceof Error ? err.message : 'bad signature' };
    }
  },
  parseCallback(callback) {
    const event = JSON.parse(callback.rawBody) as Stripe.Event;
    if (!event.type.startsWith('payment_intent.')) return [];
    const pi = event.data.object as Stripe.PaymentIntent;
    const outcome = intentOutcome(pi.status);
    const status = outcome === 'succeeded' ? 'delivered' : outcome;
    return [{ kind: 'deliveryStatus', providerRef: pi.id, status, error: pi.last_payment_error?.code }];
  },
};

/** The Customer a saved PaymentMethod is attached to (null: attached to none), or why Stripe would not say. */
export async function paymentMethodOwner(
  ctx: Pick<ProviderCallContext, 'connector' | 'secret' | 'deps'>,
  paymentMethod: string,
): Promise<{ customer: string | null } | { error: ProviderError }> {
  try {
    const pm = await (await clientOf(ctx as ProviderCallContext)).paymentMethods.retrieve(paymentMethod);
    return { customer: typeof pm.customer === 'string' ? pm.customer : (pm.customer?.id ?? null) };
  } catch (err) {
    return { error: stripeFailure(err) };
  }
}

/**
 * A PaymentIntent as it is now (the sweep's read of a payment whose webhook never came): a charge replayed under its
 * idempotency key would answer what Stripe said the first time, not what happened since.
 */
export async function paymentIntentNow(
  ctx: Pick<ProviderCallContext, 'connector' | 'secret' | 'deps'>,
  id: string,
): Promise<ProviderResult> {
  try {
    const pi = await (await clientOf(ctx as ProviderCallContext)).paymentIntents.retrieve(id);
    const status = intentOutcome(pi.status);
    const error = pi.last_payment_error;
    return {
      status,
      providerRef: pi.id,
      answer: intentAnswer(pi),
      ...(status === 'failed'
        ? { error: { code: error?.code ?? pi.status, message: error?.message ?? pi.status, transient: false } }
        : {}),
    };
  } catch (err) {
    return { status: 'failed', providerRef: id, answer: {}, error: stripeFailure(err) };
  }
}
