import type { Deps } from '../../shared/deps.js';
import { getListing } from '../hunt/index.js';
import type { Db } from '../../shared/db/knex.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { latestTaskRunOutputs } from '../../shared/db/run-steps.js';
import {
  drawFromMandate,
  getMandate,
  insertReceipt,
  receiptBySettleKey,
  type MandateRow,
  type ReceiptRow,
} from './repository.js';
import { policyViolation } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { wakeDispatcher } from '../events/index.js';
import { decide } from '../policy/index.js';
import { cites, evidenceFromOutputs, NO_EVIDENCE, settlementRefusal, toMajor, type PurchaseEvidence } from './logic.js';
import { knownCurrency, minorUnits } from './mandates-service.js';
import { PROVIDER } from './provider.js';
import { enqueueConfirm } from './provider-jobs.js';

export interface SettleInput {
  mandateId: string;
  /**
   * The task paying; null for a run without a task that named its mandate, which then pays for the mandate's own task.
   */
  taskId: string | null;
  vendorId: string;
  /** Major units, as the API speaks. */
  amount: number;
  currency: string;
  povRef: string | null;
  /** The run whose pay step settles (null through the API). */
  runId?: string | null;
  /** At most one receipt per key: a retried pay step gets its earlier receipt back instead of paying twice. */
  settleKey?: string | null;
  /** The purchase evidence the mandate's resolve rules are checked against; read only when the mandate has rules. */
  evidence: (db: Db) => Promise<PurchaseEvidence>;
}

export interface Settled {
  receipt: ReceiptRow;
  mandate: MandateRow;
  /** True when the settle key had a receipt already (nothing was settled now). */
  replayed: boolean;
}

/** Step outputs (by domain) → purchase evidence, with the chosen listing's own text and fee amount from the catalog. */
export async function purchaseEvidence(
  db: Db,
  accountId: string,
  outputs: Record<string, Record<string, unknown> | undefined>,
): Promise<PurchaseEvidence> {
  const itemId = (outputs.hunt?.selected as { itemId?: unknown } | undefined)?.itemId;
  const listing = typeof itemId === 'string' ? await getListing(db, accountId, itemId) : null;
  return evidenceFromOutputs(
    outputs,
    listing
      ? { feesMinor: listing.fees_minor, text: [listing.title, listing.description, ...listing.tags].join('\n') }
      : null,
  );
}

/** The evidence of a task: its newest run's step outputs (a settlement through the API names a task, not a run). */
export const taskEvidence = (accountId: string, taskId: string) => async (db: Db) =>
  purchaseEvidence(db, accountId, await latestTaskRunOutputs(db, accountId, taskId));

/**
 * Settles against a mandate. In one transaction, under the mandate's row
 * lock: the checks (unknown, revoked, expired, task, currency, vendor,
 * remaining budget, resolve rules; 422 naming the rule), the provider's
 * posting, the receipt, the drawdown (guarded again in SQL and by a CHECK)
 * and the `pay.settled` event. Concurrent settlements of one mandate queue
 * on the lock, so together they never exceed what was granted. Under a
 * Stripe-backed mandate the receipt is written `pending` and its PaymentIntent
 * is created after commit (confirm.ts); its `pay.settled` follows Stripe's word.
 */
export async function settle(deps: Deps, accountId: string, input: SettleInput): Promise<Settled> {
  // The published policy is the enforced one: pay settles only while its table allows it, and what it requires (a
  // mandate) is checked below.
  const policy = decide('pay', 'payments.settle');
  if (!policy.allowed)
    throw policyViolation(`payments.settle is denied by ${policy.rule.id}: ${policy.reason}`, {
      reason: 'policyDenied',
      rule: policy.rule,
    });
  const currency = knownCurrency(input.currency, '/currency');
  const amountMinor = minorUnits(input.amount, currency, '/amount');
  const done = await deps.db.transaction(async (trx) => {
    const mandate = await getMandate(trx, accountId, input.mandateId, true);
    if (!mandate)
      throw policyViolation(`Mandate ${input.mandateId} is unknown: settlement needs a valid mandate of yours`, {
        reason: 'unknownMandate',
        mandateId: input.mandateId,
      });
    if (input.settleKey) {
      const earlier = await receiptBySettleKey(trx, accountId, input.settleKey);
      if (earlier) return { receipt: earlier, mandate, replayed: true, deliveries: 0 };
    }
    const evidence = mandate.resolve_rules.length > 0 ? await input.evidence(trx) : NO_EVIDENCE;
    const refusal = settlementRefusal(
      {
        id: mandate.id,
        taskId: mandate.task_id,
        currency: mandate.currency,
        maxMinor: mandate.max_minor,
        spentMinor: mandate.spent_minor,
        allowedVendors: mandate.allowed_vendors,
        resolveRules: mandate.resolve_rules,
        status: mandate.status,
        expired: mandate.expired,
      },
      { taskId: input.taskId ?? mandate.task_id, vendorId: input.vendorId, amountMinor, currency },
      evidence,
    );
    if (refusal) throw policyViolation(refusal.message, refusal.details);

    const receiptId = newId('rcpt');
    const backing = mandate.provider_backing;
    // A Stripe-backed mandate pays after commit (confirm.ts): here the receipt is written pending, with no network
    // call under the lock; the ledger posts its entries now.
    const providerRef = backing
      ? null
      : (
          await PROVIDER.settle(trx, {
            accountId,
            receiptId,
            mandateId: mandate.id,
            vendorId: input.vendorId,
            amountMinor,
            currency,
          })
        ).providerRef;
    const receipt = await insertReceipt(trx, {
      id: receiptId,
      account_id: accountId,
      mandate_id: mandate.id,
      task_id: mandate.task_id,
      run_id: input.runId ?? null,
      vendor_id: input.vendorId,
      amount_minor: amountMinor,
      currency,
      pov_ref: input.povRef,
      provider: backing ? backing.provider : PROVIDER.name,
      provider_ref: providerRef,
      settle_key: input.settleKey ?? null,
      status: backing ? 'pending' : 'settled',
      connector_pk: backing?.connectorPk ?? null,
    });
    const drawn = await drawFromMandate(trx, mandate.id, amountMinor);
    // Unreachable while the row lock holds; if it ever did not, the statement's guard refuses rather than overspend.
    if (!drawn)
      throw policyViolation(`Mandate ${mandate.id} has no budget left for ${amountMinor} minor units`, {
        reason: 'overBudget',
        mandateId: mandate.id,
      });
    // A pending payment's pay.settled is written when Stripe says it succeeded (provider-call.ts).
    if (backing) return { receipt, mandate: drawn, replayed: false, deliveries: 0 };
    const { deliveries } = await recordEvent(trx, {
      accountId,
      type: 'pay.settled',
      subject: receiptId,
      payload: {
        receiptId,
        mandateId: mandate.id,
        amount: toMajor(amountMinor, currency),
        currency,
        vendorId: input.vendorId,
        taskId: mandate.task_id,
        runId: input.runId ?? null,
        cite: cites.receipt(receiptId),
      },
    });
    return { receipt, mandate: drawn, replayed: false, deliveries };
  });
  if (done.deliveries > 0) await wakeDispatcher(deps);
  // A replayed pay step asks again too: the job id is the receipt's, so a confirm already queued is not doubled.
  if (done.receipt.status === 'pending')
    await enqueueConfirm(deps, done.receipt.id).catch((err) =>
      deps.log.warn({ err, receiptId: done.receipt.id }, 'confirm job not queued; the pay.confirm sweep puts it back'),
    );
  return { receipt: done.receipt, mandate: done.mandate, replayed: done.replayed };
}
