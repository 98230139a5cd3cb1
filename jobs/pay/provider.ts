import type { Db } from '../../shared/db/knex.js';
import { insertLedgerEntries } from './repository.js';

/** One settlement as a provider sees it: the receipt being written and what it moves. */
export interface Settlement {
  accountId: string;
  receiptId: string;
  mandateId: string;
  vendorId: string;
  amountMinor: number;
  currency: string;
}

/**
 * Where money moves. A provider is called inside the settlement's
 * transaction, after the mandate checks passed under the mandate's row lock:
 * if it throws, nothing of the settlement is written. A provider that calls
 * out over the network would reserve here and capture after commit (with
 * the receipt id as its idempotency key); the built-in one needs no network.
 */
export interface PaymentProvider {
  name: string;
  /** Moves the money; returns the provider's reference for the receipt. */
  settle(trx: Db, s: Settlement): Promise<{ providerRef: string }>;
}

/**
 * The built-in provider: an internal double-entry ledger. Each settlement
 * posts a credit to `mandate:<id>` (the grant drawn down) and a debit to
 * `vendor:<vendorId>` (paid to the vendor), so every balance is a sum over
 * `pay_ledger_entries` and debits always equal credits. No money leaves the
 * service: it records what was authorized and settled, nothing more.
 */
export const internalLedger: PaymentProvider = {
  name: 'internalLedger',
  async settle(trx, s) {
    const side = (ledgerAccount: string, direction: 'debit' | 'credit') => ({
      account_id: s.accountId,
      receipt_id: s.receiptId,
      ledger_account: ledgerAccount,
      direction,
      amount_minor: s.amountMinor,
      currency: s.currency,
    });
    await insertLedgerEntries(trx, [side(`vendor:${s.vendorId}`, 'debit'), side(`mandate:${s.mandateId}`, 'credit')]);
    return { providerRef: `ledger:${s.receiptId}` };
  },
};

/** The provider settlements go through. */
export const PROVIDER: PaymentProvider = internalLedger;
