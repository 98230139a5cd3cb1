import type { Job } from 'bullmq';
import type { Deps } from '../../shared/deps.js';
import { adapterFor, paymentIntentNow, type ProviderResult } from '../bridge/index.js';
import { wakeDispatcher } from '../events/index.js';
import { applyOutcome, providerContext } from './provider-call.js';
import { putBack } from './provider-jobs.js';
import { countConfirmAttempt, receiptById, receiptsToReconcile, refundsToReconcile } from './provider-repository.js';
import { sendRefund } from './refunds.js';
import { getMandate, type ReceiptRow } from './repository.js';

/**
 * After commit: a pending receipt's PaymentIntent is created and confirmed off session, with the receipt id as
 * Stripe's Idempotency-Key, by a job on the pay-provider queue (one per receipt: its id is fixed). The receipt row is
 * the outbox: the `pay.confirm` sweep puts back the job of any receipt still pending a minute after its last touch
 * (the process died between commit and enqueue, or Redis lost the job), so a crash neither loses a payment nor, since
 * Stripe answers a repeated key with the first PaymentIntent, pays twice.
 */

/** How long a pending receipt rests before the sweep checks its job (its job retries for about a minute itself). */
export const IDLE_SECONDS = 60;
/** How long a payment Stripe reported under way (processing) rests before the sweep reads it again. */
const WAIT_SECONDS = 15 * 60;
/**
 * Stripe keeps an idempotency key 24 hours: past that a repeated create could pay again, so a receipt older than
 * this is left to its webhooks (and to a person: docs/known-gaps.md).
 */
const MAX_AGE_HOURS = 23;
const BATCH = 200;

export class TransientProviderError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'TransientProviderError';
  }
}

/** What the provider says of the receipt's payment: a PaymentIntent created now, or the one it has, as it is now. */
async function askProvider(deps: Deps, receipt: ReceiptRow): Promise<ProviderResult> {
  const got = await providerContext(deps, receipt.account_id, receipt.connector_pk!, receipt.id);
  if ('error' in got) return { status: 'failed', providerRef: null, answer: {}, error: got.error };
  if (receipt.provider_ref) return paymentIntentNow(got.ctx, receipt.provider_ref);
  const mandate = await getMandate(deps.db, receipt.account_id, receipt.mandate_id);
  const backing = mandate?.provider_backing;
  if (!backing) {
    const error = { code: 'noBacking', message: 'the mandate has no Stripe backing', transient: false };
    return { status: 'failed', providerRef: null, answer: {}, error };
  }
  return adapterFor(got.connector.kind)!.call(
    'pay.charge',
    {
      amount: receipt.amount_minor,
      currency: receipt.currency,
      customer: backing.customer,
      paymentMethod: backing.paymentMethod,
      description: `${receipt.vendor_id} (${receipt.id})`,
      metadata: { awpReceiptId: receipt.id, awpMandateId: receipt.mandate_id, awpVendorId: receipt.vendor_id },
    },
    got.ctx,
  );
}

/**
 * Confirms one pending receipt with its provider and writes the outcome. A transient refusal throws, so the job is
 * retried with backoff (and after its attempts, the sweep puts it back).
 */
export async function confirmReceipt(deps: Deps, receiptId: string): Promise<Record<string, unknown>> {
  const claimed = await countConfirmAttempt(deps.db, receiptId);
  if (!claimed?.connector_pk) return { result: 'notPending' };
  const result = await askProvider(deps, claimed);
  const providerStatus = typeof result.answer.status === 'string' ? result.answer.status : null;
  const done = await deps.db.transaction(async (trx) => {
    // Locks in settlement's order: the mandate, then the receipt.
    await getMandate(trx, claimed.account_id, claimed.mandate_id, true);
    const receipt = (await receiptById(trx, claimed.id, true))!;
    return applyOutcome(trx, receipt, { ...result, providerStatus });
  });
  if (done.deliveries > 0) await wakeDispatcher(deps);
  if (result.status === 'failed' && result.error?.transient)
    throw new TransientProviderError(result.error.code, result.error.message);
  return { result: done.receipt.status, providerRef: done.receipt.provider_ref };
}

export async function processPayProvider(job: Job, deps: Deps): Promise<unknown> {
  if (job.name === 'confirm') return confirmReceipt(deps, (job.data as { receiptId: string }).receiptId);
  if (job.name === 'refund') return sendRefund(deps, (job.data as { refundId: string }).refundId);
  throw new Error(`pay-provider: unknown job ${job.name}`);
}

/**
 * The `pay.confirm` sweep: every receipt pending at a provider and untouched for IDLE_SECONDS gets its confirm job
 * back (which creates its PaymentIntent, or reads the one it has when its webhook never came), and so does every
 * refund the provider has not answered.
 */
export async function sweepProviderWork(deps: Deps): Promise<{ receipts: number; refunds: number }> {
  let receipts = 0;
  let refunds = 0;
  const pending = await receiptsToReconcile(
    deps.db,
    { idleSeconds: IDLE_SECONDS, waitSeconds: WAIT_SECONDS, maxAgeHours: MAX_AGE_HOURS },
    BATCH,
  );
  for (const r of pending) if (await putBack(deps, 'confirm', r.id)) receipts++;
  for (const r of await refundsToReconcile(deps.db, IDLE_SECONDS, BATCH))
    if (await putBack(deps, 'refund', r.id)) refunds++;
  if (receipts + refunds > 0) deps.log.warn({ receipts, refunds }, 'pay provider jobs put back');
  return { receipts, refunds };
}
