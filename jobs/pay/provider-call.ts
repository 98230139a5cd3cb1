import type { Deps } from '../../shared/deps.js';
import { AppError } from '../../shared/errors.js';
import { adapterFor, getConnectorByPk, type ProviderCallContext, type ProviderResult } from '../bridge/index.js';
import type { ConnectorRow } from '../bridge/index.js';
import { resolveReference } from '../credentials/index.js';
import { recordEvent } from '../../shared/db/outbox.js';
import type { Db } from '../../shared/db/knex.js';
import { cites, toMajor } from './logic.js';
import { RECEIPTS } from './machine.js';
import { releaseDraw, updateReceipt } from './provider-repository.js';
import type { ReceiptRow } from './repository.js';

type Failure = NonNullable<ProviderResult['error']>;

/**
 * The connector a receipt or mandate pays through, its adapter and its secret key (opened in the paying account's
 * vault, for a platform connector from the server's environment). A connector gone, of another kind, or a key that
 * does not open is a permanent failure: no retry makes it pay.
 */
export async function providerContext(
  deps: Deps,
  accountId: string,
  connectorPk: string,
  idempotencyKey: string,
): Promise<{ ctx: ProviderCallContext; connector: ConnectorRow } | { error: Failure }> {
  const connector = await getConnectorByPk(deps.db, connectorPk);
  if (!connector || (connector.account_id !== accountId && !connector.platform))
    return {
      error: { code: 'connectorGone', message: 'the Stripe connector of the mandate is gone', transient: false },
    };
  if (!adapterFor(connector.kind)?.capabilities.includes('pay.charge'))
    return {
      error: { code: 'notAPaymentProvider', message: `${connector.kind} does not take payments`, transient: false },
    };
  let secret: string | null = null;
  try {
    secret = connector.credential
      ? await resolveReference(
          deps,
          { accountId, allowEnv: connector.platform, via: 'pay.provider' },
          connector.credential.tokenRef,
        )
      : null;
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    return { error: { code: 'credentialUnavailable', message: err.message, transient: false } };
  }
  if (!secret)
    return { error: { code: 'credentialUnavailable', message: 'the connector has no secret key', transient: false } };
  return { ctx: { deps, connector, secret, idempotencyKey }, connector };
}

const payload = (r: ReceiptRow) => ({
  receiptId: r.id,
  mandateId: r.mandate_id,
  amount: toMajor(r.amount_minor, r.currency),
  currency: r.currency,
  vendorId: r.vendor_id,
  taskId: r.task_id,
  runId: r.run_id,
  cite: cites.receipt(r.id),
});

/**
 * What the provider said about a pending receipt, written: paid → `settled` and `pay.settled`; under way → its
 * reference and status are kept; refused for good → `failed`, its amount back on the mandate, and `pay.failed`; a
 * transient refusal leaves it pending with the error noted. The caller holds the mandate's and the receipt's row locks
 * (in that order, as settlement takes them). Returns the receipt and how many webhook deliveries were queued.
 */
export async function applyOutcome(
  trx: Db,
  receipt: ReceiptRow,
  result: Pick<ProviderResult, 'status' | 'providerRef' | 'error'> & { providerStatus: string | null },
): Promise<{ receipt: ReceiptRow; changed: boolean; deliveries: number }> {
  const providerRef = result.providerRef ?? receipt.provider_ref;
  const common = { provider_ref: providerRef, provider_status: result.providerStatus ?? receipt.provider_status };
  if (receipt.status !== 'pending') return { receipt, changed: false, deliveries: 0 };
  if (result.status === 'pending' || (result.status === 'failed' && result.error?.transient)) {
    const error = result.error ? { code: result.error.code, message: result.error.message } : receipt.provider_error;
    return {
      receipt: await updateReceipt(trx, receipt.id, { ...common, provider_error: error }),
      changed: false,
      deliveries: 0,
    };
  }
  const to = result.status === 'succeeded' ? 'settled' : 'failed';
  RECEIPTS.assertMove(receipt.status, to, `Receipt ${receipt.id}`);
  const error = result.error ? { code: result.error.code, message: result.error.message } : null;
  const row = await updateReceipt(trx, receipt.id, { ...common, status: to, provider_error: error });
  // The amount was drawn from the mandate when the receipt was written; money that never moved goes back.
  if (to === 'failed') await releaseDraw(trx, receipt.mandate_id, receipt.amount_minor);
  const { deliveries } = await recordEvent(trx, {
    accountId: receipt.account_id,
    type: to === 'settled' ? 'pay.settled' : 'pay.failed',
    subject: receipt.id,
    payload: to === 'settled' ? payload(row) : { ...payload(row), error },
  });
  return { receipt: row, changed: true, deliveries };
}
