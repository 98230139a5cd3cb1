import { iso } from '../../shared/db/knex.js';
import type { MandateRow, ReceiptRow } from './repository.js';
import type { RefundRow } from './provider-repository.js';
import { cites, toMajor } from './logic.js';
import { MANDATES, type MandateStatus, type ReceiptStatus, type RefundStatus } from './machine.js';

/**
 * `revoked` as stored; otherwise `expired` once `expiresAt` has passed (by Postgres' clock, read with the row), else
 * `active`.
 */
export function mandateStatus(row: MandateRow): MandateStatus {
  if (row.status === 'revoked') return 'revoked';
  return row.expired ? 'expired' : 'active';
}

/** Minor units → the API's `{ amount, currency }` (major units). */
export const money = (minor: number, currency: string) => ({ amount: toMajor(minor, currency), currency });

export function mandateView(row: MandateRow) {
  const status = mandateStatus(row);
  return {
    mandateId: row.id,
    taskId: row.task_id,
    status,
    allowedTransitions: MANDATES.allowed(status),
    constraints: {
      ...row.constraints,
      maxSpend: money(row.max_minor, row.currency),
      allowedVendors: row.allowed_vendors,
      resolveRules: row.resolve_rules,
    },
    remaining: money(row.max_minor - row.spent_minor, row.currency),
    spent: money(row.spent_minor, row.currency),
    issuer: row.issuer
      ? {
          entityId: row.issuer.entityId,
          publicKey: row.issuer.publicKey ?? null,
          signed: row.issuer_signature !== null,
        }
      : null,
    providerBacking: row.provider_backing
      ? {
          provider: row.provider_backing.provider,
          connectorId: row.provider_backing.connectorId,
          customer: row.provider_backing.customer,
          paymentMethod: row.provider_backing.paymentMethod,
          webhookPath: `/v1/pay/webhooks/stripe/${row.provider_backing.connectorPk}`,
        }
      : null,
    expiresAt: iso(row.expires_at),
    revokedAt: iso(row.revoked_at),
    revokedReason: row.revoked_reason,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

function receiptFields(row: ReceiptRow) {
  return {
    receiptId: row.id,
    status: row.status as ReceiptStatus,
    vendorId: row.vendor_id,
    povRef: row.pov_ref,
    cite: cites.receipt(row.id),
    mandateId: row.mandate_id,
    taskId: row.task_id,
    runId: row.run_id,
    provider: row.provider,
    providerState:
      row.provider === 'internalLedger'
        ? null
        : { paymentIntent: row.provider_ref, status: row.provider_status, error: row.provider_error },
    settledAt: iso(row.settled_at)!,
  };
}

export function refundView(row: RefundRow) {
  return {
    refundId: row.id,
    receiptId: row.receipt_id,
    amount: money(row.amount_minor, row.currency),
    status: row.status as RefundStatus,
    reason: row.reason as 'duplicate' | 'fraudulent' | 'requested_by_customer' | null,
    providerRef: row.provider_ref,
    error: row.provider_error,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

/** GET /v1/pay/receipts/{receiptId}: the receipt, what was refunded of it and each refund with its provider state. */
export function receiptDetailView(row: ReceiptRow, refunds: RefundRow[]) {
  return { ...receiptView(row), refunded: money(row.refunded_minor, row.currency), refunds: refunds.map(refundView) };
}

/** A receipt as GET /v1/pay/receipts/{receiptId} shows it: `amount` is `{ amount, currency }`. */
export function receiptView(row: ReceiptRow) {
  return { ...receiptFields(row), amount: money(row.amount_minor, row.currency) };
}

/** A receipt as the settle response shows it: `amount` is a plain number (the spec's shape), `currency` beside it. */
export function settledReceiptView(row: ReceiptRow) {
  return { ...receiptFields(row), amount: toMajor(row.amount_minor, row.currency), currency: row.currency };
}
