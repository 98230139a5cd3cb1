import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import { notFound, unauthorized } from '../../shared/errors.js';
import { openStored } from '../../shared/vault/index.js';
import { adapterFor, getConnectorByPk, intentOutcome, refundOutcome, type ConnectorRow } from '../bridge/index.js';
import { wakeDispatcher } from '../events/index.js';
import { applyOutcome } from './provider-call.js';
import {
  receiptById,
  receiptOfIntent,
  recordProviderEvent,
  refundOfProvider,
  setProviderEventResult,
} from './provider-repository.js';
import type { WEBHOOK_RESULTS } from './provider-schemas.js';
import { applyRefundOutcome } from './refunds.js';
import { getMandate } from './repository.js';

type Result = (typeof WEBHOOK_RESULTS)[number];
type Obj = Record<string, any>;
interface StripeEvent {
  id: string;
  type: string;
  data: { object: Obj };
}

const PAYMENT_EVENTS = new Set([
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.processing',
  'payment_intent.canceled',
]);

const metaOf = (o: Obj, key: string): string | null =>
  typeof o.metadata?.[key] === 'string' && o.metadata[key] ? o.metadata[key] : null;

/** A PaymentIntent event moves the receipt it pays (found by the receipt id it carries, else by its id). */
async function paymentEvent(trx: Db, connector: ConnectorRow, pi: Obj) {
  const found = await receiptOfIntent(trx, connector.id, {
    receiptId: metaOf(pi, 'awpReceiptId'),
    paymentIntent: pi.id,
  });
  if (!found) return { result: 'noReceipt' as Result, deliveries: 0 };
  await getMandate(trx, found.account_id, found.mandate_id, true);
  const receipt = (await receiptById(trx, found.id, true))!;
  const last = pi.last_payment_error as Obj | null | undefined;
  const status = intentOutcome(String(pi.status));
  const error =
    status === 'failed'
      ? {
          code: String(last?.decline_code ?? last?.code ?? pi.status),
          message: String(last?.message ?? `the payment is ${pi.status}`),
          transient: false,
        }
      : undefined;
  const done = await applyOutcome(trx, receipt, {
    status,
    providerRef: pi.id,
    error,
    providerStatus: String(pi.status),
  });
  return { result: (done.changed ? 'receiptUpdated' : 'unchanged') as Result, deliveries: done.deliveries };
}

/** A Refund (refund.*, charge.refund.*, or each one a charge.refunded lists) moves the refund it stands for. */
async function refundEvent(trx: Db, connector: ConnectorRow, re: Obj) {
  const pi = typeof re.payment_intent === 'string' ? re.payment_intent : re.payment_intent?.id;
  const found = await receiptOfIntent(trx, connector.id, { receiptId: metaOf(re, 'awpReceiptId'), paymentIntent: pi });
  if (!found) return { result: 'noReceipt' as Result, deliveries: 0 };
  await receiptById(trx, found.id, true);
  const refund = await refundOfProvider(trx, found.id, { refundId: metaOf(re, 'awpRefundId'), providerRef: re.id });
  // A refund made in Stripe's dashboard is not one of ours: docs/known-gaps.md.
  if (!refund) return { result: 'noRefund' as Result, deliveries: 0 };
  const status = refundOutcome(re.status ?? null);
  const error =
    status === 'failed'
      ? { code: String(re.failure_reason ?? re.status), message: `the refund ${re.status}`, transient: false }
      : undefined;
  const done = await applyRefundOutcome(trx, refund, {
    status,
    providerRef: re.id,
    error,
    providerStatus: re.status ?? null,
  });
  return { result: (done.changed ? 'refundUpdated' : 'unchanged') as Result, deliveries: done.deliveries };
}

async function applyEvent(trx: Db, connector: ConnectorRow, event: StripeEvent) {
  const object = event.data.object;
  if (PAYMENT_EVENTS.has(event.type)) return paymentEvent(trx, connector, object);
  const refunds: Obj[] =
    event.type.startsWith('refund.') || event.type.startsWith('charge.refund.')
      ? [object]
      : event.type === 'charge.refunded'
        ? ((object.refunds?.data as Obj[] | undefined) ?? [])
        : [];
  let outcome = { result: 'ignored' as Result, deliveries: 0 };
  for (const re of refunds) {
    const one = await refundEvent(trx, connector, re);
    outcome = { result: one.result, deliveries: outcome.deliveries + one.deliveries };
  }
  return outcome;
}

/**
 * A Stripe webhook for a connector: no bearer token, the `Stripe-Signature` over the raw body with the connector's
 * whsec_ secret is the authentication (401 unsigned, forged, or older than Stripe's 300 s tolerance: a replay). Each
 * event lands once per connector (a redelivery answers `duplicate: true` and changes nothing); the event's record and
 * what it changes commit together, so an event whose handling died is handled again when Stripe redelivers it.
 */
export async function receiveStripeWebhook(
  deps: Deps,
  connectorPk: string,
  rawBody: string | undefined,
  headers: Readonly<Record<string, string | undefined>>,
): Promise<{ eventId: string; duplicate: boolean; result: Result }> {
  const connector = await getConnectorByPk(deps.db, connectorPk);
  if (!connector || connector.kind !== 'stripe') throw notFound(`Connector ${connectorPk}`);
  const secret = await openStored(deps, connector.signing_secret);
  if (!secret) throw unauthorized('Webhook refused: the connector has no signing secret (whsec_…) to check it');
  const stripe = adapterFor('stripe')!;
  await stripe.load?.();
  const verdict = stripe.verifyCallback!(
    {
      rawBody: rawBody ?? '',
      headers: headers as Record<string, string>,
      contentType: '',
      url: '',
      receivedAt: new Date(),
    },
    secret,
  );
  if (!verdict.ok) throw unauthorized(`Webhook refused: ${verdict.reason}`);
  const event = JSON.parse(rawBody!) as StripeEvent;
  const key = { connector_pk: connector.id, event_id: event.id };
  const done = await deps.db.transaction(async (trx) => {
    if (!(await recordProviderEvent(trx, { ...key, type: event.type })))
      return { duplicate: true, result: 'unchanged' as Result, deliveries: 0 };
    const outcome = await applyEvent(trx, connector, event);
    await setProviderEventResult(trx, key, { result: outcome.result });
    return { duplicate: false, ...outcome };
  });
  if (done.deliveries > 0) await wakeDispatcher(deps);
  return { eventId: event.id, duplicate: done.duplicate, result: done.result };
}
