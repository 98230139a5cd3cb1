import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { conflict, notFound, policyViolation } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { adapterFor, type ProviderResult } from '../bridge/index.js';
import { wakeDispatcher } from '../events/index.js';
import { cites, formatMoney, toMajor } from './logic.js';
import { REFUNDS } from './machine.js';
import { minorUnits } from './mandates-service.js';
import { providerContext } from './provider-call.js';
import { enqueueRefund } from './provider-jobs.js';
import {
  addRefunded,
  insertRefund,
  receiptById,
  refundById,
  refundsOfReceipt,
  updateRefund,
  type RefundRow,
} from './provider-repository.js';
import { insertLedgerEntries, type ReceiptRow } from './repository.js';
import type { RefundCreate } from './provider-schemas.js';

const refundPayload = (r: RefundRow) => ({
  refundId: r.id,
  receiptId: r.receipt_id,
  amount: toMajor(r.amount_minor, r.currency),
  currency: r.currency,
  status: r.status,
  cite: cites.receipt(r.receipt_id),
});

/**
 * Refunds a settled receipt, in part or in full (no amount: what is left), under the receipt's row lock: never more
 * than it paid minus the refunds asked for before (422 `overRefund`). The ledger refunds at once (reversed entries);
 * at Stripe a Refund is created after commit with the refund id as its Idempotency-Key, and its status follows from
 * Stripe's answer and webhooks. A refund that fails gives its amount back to what may still be refunded. The
 * mandate's budget is not restored: it counts what was paid out under it.
 */
export async function requestRefund(deps: Deps, principal: Principal, ask: RefundCreate) {
  const done = await deps.db.transaction(async (trx) => {
    const receipt = await receiptById(trx, ask.receiptId, true);
    if (!receipt || receipt.account_id !== principal.accountId) throw notFound(`Receipt ${ask.receiptId}`);
    if (receipt.status !== 'settled')
      throw conflict(`Receipt ${receipt.id} is ${receipt.status}: only a settled payment can be refunded`, {
        status: receipt.status,
      });
    const left = receipt.amount_minor - receipt.refunded_minor;
    const amountMinor = ask.amount === undefined ? left : minorUnits(ask.amount, receipt.currency, '/amount');
    if (amountMinor > left || left === 0)
      throw policyViolation(
        `${formatMoney(amountMinor, receipt.currency)} is more than the ${formatMoney(left, receipt.currency)} ` +
          `left to refund on receipt ${receipt.id}`,
        { reason: 'overRefund', refundable: toMajor(left, receipt.currency) },
      );
    await addRefunded(trx, receipt.id, amountMinor);
    const ledger = receipt.provider === 'internalLedger';
    const refund = await insertRefund(trx, {
      id: newId('rfnd'),
      account_id: receipt.account_id,
      receipt_id: receipt.id,
      amount_minor: amountMinor,
      currency: receipt.currency,
      reason: ask.reason ?? null,
      status: ledger ? 'succeeded' : 'pending',
    });
    let deliveries = 0;
    if (ledger) {
      const side = (account: string, direction: 'debit' | 'credit') => ({
        account_id: receipt.account_id,
        receipt_id: receipt.id,
        ledger_account: account,
        direction,
        amount_minor: amountMinor,
        currency: receipt.currency,
      });
      // The settlement's posting reversed: the vendor gives back what the mandate paid.
      await insertLedgerEntries(trx, [
        side(`vendor:${receipt.vendor_id}`, 'credit'),
        side(`mandate:${receipt.mandate_id}`, 'debit'),
      ]);
      ({ deliveries } = await recordEvent(trx, {
        accountId: receipt.account_id,
        type: 'pay.refunded',
        subject: refund.id,
        payload: refundPayload(refund),
      }));
    }
    return { refund, receipt: (await receiptById(trx, receipt.id))!, deliveries };
  });
  if (done.deliveries > 0) await wakeDispatcher(deps);
  if (done.refund.status === 'pending') {
    // A lost enqueue is put back by the pay.confirm sweep.
    await enqueueRefund(deps, done.refund.id).catch((err) => deps.log.warn({ err }, 'refund job not queued'));
  }
  return done;
}

/**
 * A refund's outcome, written under the receipt's and the refund's locks (the caller holds them): a move the refund
 * table allows, its provider reference, the amount given back when it failed or was canceled, `pay.refunded` when it
 * succeeded.
 */
export async function applyRefundOutcome(
  trx: Db,
  refund: RefundRow,
  result: Pick<ProviderResult, 'status' | 'providerRef' | 'error'> & { providerStatus: string | null },
): Promise<{ refund: RefundRow; changed: boolean; deliveries: number }> {
  const providerRef = result.providerRef ?? refund.provider_ref;
  const error = result.error ? { code: result.error.code, message: result.error.message } : refund.provider_error;
  const to =
    result.status === 'succeeded'
      ? 'succeeded'
      : result.status === 'pending' || result.error?.transient
        ? 'pending'
        : result.providerStatus === 'canceled'
          ? 'canceled'
          : 'failed';
  if (to === refund.status || !REFUNDS.canMove(refund.status, to))
    return {
      refund: await updateRefund(trx, refund.id, { provider_ref: providerRef, provider_error: error }),
      changed: false,
      deliveries: 0,
    };
  const row = await updateRefund(trx, refund.id, { status: to, provider_ref: providerRef, provider_error: error });
  if (to === 'failed' || to === 'canceled') await addRefunded(trx, refund.receipt_id, -refund.amount_minor);
  if (to !== 'succeeded') return { refund: row, changed: true, deliveries: 0 };
  const { deliveries } = await recordEvent(trx, {
    accountId: refund.account_id,
    type: 'pay.refunded',
    subject: refund.id,
    payload: refundPayload(row),
  });
  return { refund: row, changed: true, deliveries };
}

/** Creates the refund at the provider (the job after commit); a transient refusal throws so the job retries. */
export async function sendRefund(deps: Deps, refundId: string): Promise<Record<string, unknown>> {
  const refund = await refundById(deps.db, refundId);
  if (!refund || refund.status !== 'pending' || refund.provider_ref) return { result: 'notPending' };
  const receipt = (await receiptById(deps.db, refund.receipt_id)) as ReceiptRow;
  const got = await providerContext(deps, refund.account_id, receipt.connector_pk!, refund.id);
  const result: ProviderResult =
    'error' in got
      ? { status: 'failed', providerRef: null, answer: {}, error: got.error }
      : await adapterFor(got.connector.kind)!.call(
          'pay.refund',
          {
            paymentIntent: receipt.provider_ref,
            amount: refund.amount_minor,
            ...(refund.reason ? { reason: refund.reason } : {}),
            metadata: { awpRefundId: refund.id, awpReceiptId: receipt.id },
          },
          got.ctx,
        );
  const providerStatus = typeof result.answer.status === 'string' ? result.answer.status : null;
  const done = await deps.db.transaction(async (trx) => {
    await receiptById(trx, receipt.id, true);
    return applyRefundOutcome(trx, (await refundById(trx, refund.id, true))!, { ...result, providerStatus });
  });
  if (done.deliveries > 0) await wakeDispatcher(deps);
  if (result.status === 'failed' && result.error?.transient) throw new Error(`refund: ${result.error.message}`);
  return { result: done.refund.status, providerRef: done.refund.provider_ref };
}

/** A receipt of the caller's with its refunds (404 for another account's). */
export async function receiptWithRefunds(deps: Pick<Deps, 'db'>, principal: Principal, receiptId: string) {
  const receipt = await receiptById(deps.db, receiptId);
  if (!receipt || receipt.account_id !== principal.accountId) throw notFound(`Receipt ${receiptId}`);
  return { receipt, refunds: await refundsOfReceipt(deps.db, receipt.id) };
}
