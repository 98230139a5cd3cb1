import type { Db } from '../../shared/db/knex.js';
import type { MandateRow, ReceiptRow } from './repository.js';

/** SQL of money that moves at a provider: receipts confirmed after commit, refunds, and provider webhook events. */

export interface RefundRow {
  id: string;
  account_id: string;
  receipt_id: string;
  amount_minor: number;
  currency: string;
  reason: string | null;
  status: string;
  provider_ref: string | null;
  provider_error: { code: string; message: string } | null;
  created_at: Date;
  updated_at: Date;
}

export type ReceiptChange = Partial<Pick<ReceiptRow, 'status' | 'provider_ref' | 'provider_status' | 'provider_error'>>;

/** A receipt by id alone (the confirm job and webhooks find it so); `forUpdate` locks it. */
export async function receiptById(db: Db, id: string, forUpdate = false): Promise<ReceiptRow | null> {
  const q = db('pay_receipts').where({ id }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

/** The receipt a PaymentIntent pays, through this connector: by the receipt id it carries, else by its id. */
export async function receiptOfIntent(
  db: Db,
  connectorPk: string,
  ids: { receiptId: string | null; paymentIntent: string },
): Promise<ReceiptRow | null> {
  const q = db('pay_receipts').where({ connector_pk: connectorPk });
  if (ids.receiptId) q.andWhere({ id: ids.receiptId });
  else q.andWhere({ provider_ref: ids.paymentIntent });
  return (await q.first()) ?? null;
}

/** Counts a confirm attempt of a receipt still pending; null when it is not (settled, failed) any more. */
export async function countConfirmAttempt(db: Db, id: string): Promise<ReceiptRow | null> {
  const [row] = await db('pay_receipts')
    .where({ id, status: 'pending' })
    .update({ confirm_attempts: db.raw('confirm_attempts + 1'), updated_at: db.fn.now() })
    .returning('*');
  return row ?? null;
}

export async function updateReceipt(db: Db, id: string, change: ReceiptChange): Promise<ReceiptRow> {
  const patch: Record<string, unknown> = { ...change, updated_at: db.fn.now() };
  if (change.provider_error !== undefined) patch.provider_error = JSON.stringify(change.provider_error);
  const [row] = await db('pay_receipts').where({ id }).update(patch).returning('*');
  return row;
}

/** Gives a failed payment's amount back to its mandate (under the mandate's row lock, which the caller holds). */
export async function releaseDraw(trx: Db, mandateId: string, amountMinor: number): Promise<MandateRow | null> {
  const [row] = await trx('pay_mandates')
    .where({ id: mandateId })
    .andWhere('spent_minor', '>=', amountMinor)
    .update({ spent_minor: trx.raw('spent_minor - ?', [amountMinor]), updated_at: trx.fn.now() })
    .returning('id');
  return row ?? null;
}

/**
 * Receipts under way at a provider whose confirm job is overdue (`idleSeconds` untouched, no PaymentIntent yet), or
 * whose outcome never arrived (`waitSeconds` since the PaymentIntent was last read), oldest first.
 */
export async function receiptsToReconcile(
  db: Db,
  opts: { idleSeconds: number; waitSeconds: number; maxAgeHours: number },
  limit: number,
): Promise<ReceiptRow[]> {
  return db('pay_receipts')
    .where({ status: 'pending' })
    .whereNotNull('connector_pk')
    .andWhereRaw(
      'updated_at < now() - make_interval(secs => CASE WHEN provider_ref IS NULL THEN ?::int ELSE ?::int END) AND ' +
        "settled_at > now() - interval '1 hour' * ?::int",
      [opts.idleSeconds, opts.waitSeconds, opts.maxAgeHours],
    )
    .orderBy('updated_at')
    .limit(limit);
}

export async function insertRefund(
  trx: Db,
  row: Pick<RefundRow, 'id' | 'account_id' | 'receipt_id' | 'amount_minor' | 'currency' | 'reason' | 'status'>,
): Promise<RefundRow> {
  const [created] = await trx('pay_refunds').insert(row).returning('*');
  return created;
}

/** Adds `delta` (negative: gives it back) to what a receipt has refunded, never past its amount nor below 0. */
export async function addRefunded(trx: Db, receiptId: string, delta: number): Promise<boolean> {
  const n = await trx('pay_receipts')
    .where({ id: receiptId })
    .andWhereRaw('refunded_minor + ? BETWEEN 0 AND amount_minor', [delta])
    .update({ refunded_minor: trx.raw('refunded_minor + ?', [delta]), updated_at: trx.fn.now() });
  return n === 1;
}

export async function refundById(db: Db, id: string, forUpdate = false): Promise<RefundRow | null> {
  const q = db('pay_refunds').where({ id }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

export async function getRefund(db: Db, accountId: string, id: string): Promise<RefundRow | null> {
  return (await db('pay_refunds').where({ id, account_id: accountId }).first()) ?? null;
}

/** The refund a provider's Refund object stands for, among the receipt's: by our id it carries, else by its id. */
export async function refundOfProvider(
  db: Db,
  receiptId: string,
  ids: { refundId: string | null; providerRef: string },
): Promise<RefundRow | null> {
  const q = db('pay_refunds').where({ receipt_id: receiptId }).forUpdate();
  if (ids.refundId) q.andWhere({ id: ids.refundId });
  else q.andWhere({ provider_ref: ids.providerRef });
  return (await q.first()) ?? null;
}

export async function refundsOfReceipt(db: Db, receiptId: string): Promise<RefundRow[]> {
  return db('pay_refunds').where({ receipt_id: receiptId }).orderBy('id');
}

export async function updateRefund(
  db: Db,
  id: string,
  change: Partial<Pick<RefundRow, 'status' | 'provider_ref' | 'provider_error'>>,
): Promise<RefundRow> {
  const patch: Record<string, unknown> = { ...change, updated_at: db.fn.now() };
  if (change.provider_error !== undefined) patch.provider_error = JSON.stringify(change.provider_error);
  const [row] = await db('pay_refunds').where({ id }).update(patch).returning('*');
  return row;
}

/** Refunds asked for that the provider has not answered yet (their job lost, or the provider down). */
export async function refundsToReconcile(db: Db, idleSeconds: number, limit: number): Promise<RefundRow[]> {
  return db('pay_refunds')
    .where({ status: 'pending' })
    .whereNull('provider_ref')
    .andWhereRaw('updated_at < now() - make_interval(secs => ?::int)', [idleSeconds])
    .orderBy('updated_at')
    .limit(limit);
}

/** Records a provider event once; false when this connector already received it (a redelivery). */
export async function recordProviderEvent(
  trx: Db,
  row: { connector_pk: string; event_id: string; type: string },
): Promise<boolean> {
  const inserted = await trx('pay_provider_events')
    .insert(row)
    .onConflict(['connector_pk', 'event_id'])
    .ignore()
    .returning('event_id');
  return inserted.length > 0;
}

export async function setProviderEventResult(
  trx: Db,
  key: { connector_pk: string; event_id: string },
  result: Record<string, unknown>,
): Promise<void> {
  await trx('pay_provider_events')
    .where(key)
    .update({ result: JSON.stringify(result) });
}
