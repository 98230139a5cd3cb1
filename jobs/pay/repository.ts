import type { Knex } from 'knex';
import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

/** A mandate row; `expired` is read with it from Postgres' clock, as the status filter reads it. */
export interface MandateRow {
  id: string;
  account_id: string;
  task_id: string;
  currency: string;
  max_minor: number;
  spent_minor: number;
  allowed_vendors: string[] | null;
  resolve_rules: string[];
  constraints: Record<string, unknown>;
  issuer: { entityId: string; publicKey?: string } | null;
  issuer_signature: string | null;
  signed_payload: string | null;
  /** The member who issued an unsigned mandate as an approval; null when a registered issuer signed it. */
  approved_by: string | null;
  /** The registered issuer whose key verified the signature. */
  issuer_id: string | null;
  status: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  revoked_reason: string | null;
  created_at: Date;
  updated_at: Date;
  expired: boolean;
  /** The Stripe Customer and saved PaymentMethod that pay under the mandate; null: the internal ledger. */
  provider_backing: ProviderBacking | null;
}

/** What backs a mandate at a provider: the connector (its key and id) and Stripe's Customer and PaymentMethod. */
export interface ProviderBacking {
  provider: 'stripe';
  connectorPk: string;
  connectorId: string;
  customer: string;
  paymentMethod: string;
}

export type NewMandate = Pick<
  MandateRow,
  | 'id'
  | 'account_id'
  | 'task_id'
  | 'currency'
  | 'max_minor'
  | 'allowed_vendors'
  | 'resolve_rules'
  | 'constraints'
  | 'issuer'
  | 'issuer_signature'
  | 'signed_payload'
  | 'expires_at'
  | 'approved_by'
  | 'issuer_id'
  | 'provider_backing'
>;

export interface ReceiptRow {
  id: string;
  account_id: string;
  mandate_id: string;
  task_id: string;
  run_id: string | null;
  vendor_id: string;
  amount_minor: number;
  currency: string;
  pov_ref: string | null;
  provider: string;
  /** The provider's id (a PaymentIntent); null until the provider was asked, after the receipt committed. */
  provider_ref: string | null;
  settle_key: string | null;
  /** When the receipt was written (for a `pending` one: when the money was committed to, not yet moved). */
  settled_at: Date;
  status: string;
  provider_status: string | null;
  provider_error: { code: string; message: string } | null;
  connector_pk: string | null;
  refunded_minor: number;
  confirm_attempts: number;
  updated_at: Date;
}

export type NewReceipt = Pick<
  ReceiptRow,
  | 'id'
  | 'account_id'
  | 'mandate_id'
  | 'task_id'
  | 'run_id'
  | 'vendor_id'
  | 'amount_minor'
  | 'currency'
  | 'pov_ref'
  | 'provider'
  | 'provider_ref'
  | 'settle_key'
> &
  Partial<Pick<ReceiptRow, 'status' | 'connector_pk'>>;

const withExpiry = (db: Db) => ['*', db.raw('coalesce(expires_at <= now(), false) AS expired')];

export async function insertMandate(db: Db, row: NewMandate): Promise<MandateRow> {
  const [created] = await db('pay_mandates')
    .insert({
      ...row,
      constraints: JSON.stringify(row.constraints),
      issuer: row.issuer ? JSON.stringify(row.issuer) : null,
      provider_backing: row.provider_backing ? JSON.stringify(row.provider_backing) : null,
    })
    .returning(withExpiry(db) as never);
  return created;
}

/**
 * The account's mandate; with `forUpdate` it stays locked until the transaction ends (settlements and revokes of one
 * mandate queue here).
 */
export async function getMandate(db: Db, accountId: string, id: string, forUpdate = false): Promise<MandateRow | null> {
  const q = db('pay_mandates').select(withExpiry(db)).where({ id, account_id: accountId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

/** The newest mandate of the task that can still settle (active, not expired), if any. */
export async function usableMandateOfTask(db: Db, accountId: string, taskId: string): Promise<MandateRow | null> {
  return (
    (await db('pay_mandates')
      .select(withExpiry(db))
      .where({ account_id: accountId, task_id: taskId, status: 'active' })
      .andWhere((q) => {
        q.whereNull('expires_at').orWhereRaw('expires_at > now()');
      })
      .orderBy('id', 'desc')
      .first()) ?? null
  );
}

export async function listMandates(
  db: Knex,
  accountId: string,
  filter: { taskId?: string; status?: string },
  limit: number,
  cursor?: string,
): Promise<{ rows: MandateRow[]; nextCursor: string | null }> {
  const q = db('pay_mandates').select(withExpiry(db)).where({ account_id: accountId });
  if (filter.taskId) q.andWhere({ task_id: filter.taskId });
  if (filter.status === 'revoked') q.andWhere({ status: 'revoked' });
  if (filter.status === 'active')
    q.andWhere({ status: 'active' }).andWhere((b) => {
      b.whereNull('expires_at').orWhereRaw('expires_at > now()');
    });
  if (filter.status === 'expired') q.andWhere({ status: 'active' }).andWhereRaw('expires_at <= now()');
  return page<MandateRow>(q, limit, cursor);
}

export async function revokeMandate(db: Db, id: string, reason: string | null): Promise<MandateRow> {
  const [row] = await db('pay_mandates')
    .where({ id })
    .update({ status: 'revoked', revoked_at: db.fn.now(), revoked_reason: reason, updated_at: db.fn.now() })
    .returning(withExpiry(db) as never);
  return row;
}

/**
 * Draws `amountMinor` from the mandate, only if it stays within the grant:
 * a guard in the statement itself (and the table's CHECK), on top of the row
 * lock the settlement holds. Null when it would overspend.
 */
export async function drawFromMandate(trx: Db, id: string, amountMinor: number): Promise<MandateRow | null> {
  const [row] = await trx('pay_mandates')
    .where({ id })
    .andWhereRaw('spent_minor + ? <= max_minor', [amountMinor])
    .update({ spent_minor: trx.raw('spent_minor + ?', [amountMinor]), updated_at: trx.fn.now() })
    .returning(withExpiry(trx) as never);
  return row ?? null;
}

export async function insertReceipt(trx: Db, row: NewReceipt): Promise<ReceiptRow> {
  const [created] = await trx('pay_receipts').insert(row).returning('*');
  return created;
}

/** One side of a double-entry posting. */
export interface LedgerEntry {
  account_id: string;
  receipt_id: string;
  ledger_account: string;
  direction: 'debit' | 'credit';
  amount_minor: number;
  currency: string;
}

export async function insertLedgerEntries(trx: Db, entries: LedgerEntry[]): Promise<void> {
  await trx('pay_ledger_entries').insert(entries);
}

export async function receiptBySettleKey(db: Db, accountId: string, key: string): Promise<ReceiptRow | null> {
  return (await db('pay_receipts').where({ account_id: accountId, settle_key: key }).first()) ?? null;
}

export async function getReceipt(db: Db, accountId: string, id: string): Promise<ReceiptRow | null> {
  return (await db('pay_receipts').where({ id, account_id: accountId }).first()) ?? null;
}

/** The mandate's newest receipts (at most `limit`) and how many it has in all. */
export async function receiptsOfMandate(
  db: Db,
  mandateId: string,
  limit: number,
): Promise<{ rows: ReceiptRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db('pay_receipts').where({ mandate_id: mandateId }).orderBy('id', 'desc').limit(limit),
    db('pay_receipts').where({ mandate_id: mandateId }).count<{ n: string }[]>({ n: '*' }),
  ]);
  return { rows, total: Number(count[0]?.n ?? 0) };
}

export async function receiptsOfRun(db: Db, accountId: string, runId: string): Promise<ReceiptRow[]> {
  return db('pay_receipts').where({ account_id: accountId, run_id: runId }).orderBy('id');
}
