import type { Deps } from '../../shared/deps.js';
import { getListing } from '../hunt/index.js';
import { usableMandateOfTask } from './repository.js';
import { getRun } from '../../shared/db/runs.js';
import { AppError, invalidPayload } from '../../shared/errors.js';
import { PaymentMetadata } from './mandate-schemas.js';
import { check } from '../../shared/validation.js';
import type { StepHandler, StepInput, StepOutcome } from '../step.js';
import { formatMoney, purchaseOfSelection, type Purchase } from './logic.js';
import { requireRunEffect } from '../orchestrator/index.js';
import { packIdForRun } from './pack-logic.js';
import { purchaseEvidence, settle } from './settle.js';
import { money, settledReceiptView } from './views.js';

/**
 * The run's purchase: hunt's selection (its listing's URL as the proof of
 * value), else `metadata.payment` (400 when that is malformed), else nothing.
 */
async function purchaseOf(input: StepInput, deps: Deps): Promise<Purchase | null> {
  const fromHunt = purchaseOfSelection(input.prior.hunt);
  if (fromHunt) {
    const listing = fromHunt.itemId ? await getListing(deps.db, input.accountId, fromHunt.itemId) : null;
    return { ...fromHunt, povRef: listing?.url ?? fromHunt.povRef };
  }
  if (input.metadata.payment === undefined) return null;
  const errors = check(PaymentMetadata, input.metadata.payment);
  if (errors.length > 0) throw invalidPayload(`metadata.payment${errors[0]!.path}: ${errors[0]!.message}`, { errors });
  const p = input.metadata.payment as PaymentMetadata;
  return {
    itemId: null,
    title: p.title ?? `payment to ${p.vendorId}`,
    vendorId: p.vendorId,
    amount: p.amount,
    currency: p.currency ?? 'USD',
    povRef: p.povRef ?? null,
  };
}

/**
 * The mandate to settle under: named in the resume's data or the run's metadata, else the newest usable one of the
 * run's task.
 */
async function mandateFor(input: StepInput, deps: Deps, taskId: string | null): Promise<string | null> {
  const named = input.resume?.data?.mandateId ?? input.metadata.mandateId;
  if (typeof named === 'string' && named) return named;
  return taskId ? ((await usableMandateOfTask(deps.db, input.accountId, taskId))?.id ?? null) : null;
}

/** The run rests at awaitingApproval: a payment gate that is not granted fails closed, without a receipt. */
function gate(
  purchase: Purchase,
  taskId: string | null,
  reason: string,
  message: string,
  refusal?: unknown,
): StepOutcome {
  const asked = {
    vendorId: purchase.vendorId,
    amount: purchase.amount,
    currency: purchase.currency,
    itemId: purchase.itemId,
    title: purchase.title,
  };
  return {
    output: { paid: false, reason, message, purchase: asked },
    evidence: [],
    conversation: [
      `Not paid: ${message}. Resume with approved: true (and data.mandateId if it is a new mandate) once it ` +
        `is granted, or action decline.`,
    ],
    openQuestions: [message],
    suspend: {
      kind: 'awaitingApproval',
      payload: { reason, message, taskId, purchase: asked, ...(refusal ? { refusal } : {}) },
    },
  };
}

/**
 * The pay step: settles the run's purchase (a hunt selection, or
 * metadata.payment) under a mandate and cites the receipt. Without a mandate,
 * or when the mandate refuses, the run rests at awaitingApproval naming why;
 * nothing is settled. A retried step settles at most once (its settle key).
 */
export const payStep: StepHandler = async (input, deps) => {
  const resumed = input.resume?.kind === 'awaitingApproval' ? input.resume : undefined;
  if (resumed && (resumed.data?.approved === false || resumed.action === 'decline')) {
    return {
      output: { paid: false, reason: 'declined', message: 'the payment was declined' },
      evidence: [],
      conversation: ['You declined the payment; nothing was settled.'],
    };
  }
  const purchase = await purchaseOf(input, deps);
  if (!purchase) {
    const message = 'nothing was chosen to pay for (no hunt selection and no metadata.payment)';
    return {
      output: { paid: false, reason: 'nothingToPay', message },
      evidence: [],
      conversation: [`Not paid: ${message}.`],
      openQuestions: [`Pay: ${message}.`],
    };
  }
  // The run acts within its grant: without pay:write the step fails naming it, before any gate or settlement.
  await requireRunEffect(deps, input, 'pay.settle');
  const taskId = (await getRun(deps.db, input.accountId, input.runId))?.task_id ?? null;
  const mandateId = await mandateFor(input, deps, taskId);
  if (!mandateId) {
    const where = taskId
      ? `task ${taskId} has no active mandate`
      : 'the run has no task and names no metadata.mandateId';
    return gate(
      purchase,
      taskId,
      'mandateMissing',
      `no mandate covers this payment: ${where}; create one with POST /v1/pay/mandates`,
    );
  }
  await input.emit('Settling under the mandate', { mandateId, amount: purchase.amount, currency: purchase.currency });
  try {
    const { receipt, mandate, replayed } = await settle(deps, input.accountId, {
      mandateId,
      taskId,
      vendorId: purchase.vendorId,
      amount: purchase.amount,
      currency: purchase.currency,
      povRef: purchase.povRef,
      runId: input.runId,
      settleKey: `run:${input.runId}:${input.index}:${resumed?.waitpointId ?? 'start'}`,
      evidence: (db) => purchaseEvidence(db, input.accountId, input.prior),
    });
    const view = settledReceiptView(receipt);
    const paid = formatMoney(receipt.amount_minor, receipt.currency);
    const left = mandate.max_minor - mandate.spent_minor;
    const pending = receipt.status === 'pending';
    return {
      output: {
        paid: true,
        receipt: view,
        mandate: { mandateId: mandate.id, remaining: money(left, mandate.currency) },
        packId: packIdForRun(input.runId),
        replayed,
      },
      evidence: [
        {
          claim:
            `${pending ? 'Paying' : 'Settled'} ${paid} to ${purchase.vendorId} for "${purchase.title}" ` +
            `under mandate ${mandate.id}`,
          source: view.cite,
          sourceBound: true,
        },
      ],
      conversation: [
        // A Stripe payment is confirmed after commit: the receipt says pending until Stripe's answer settles it.
        `${pending ? 'Paying' : 'Paid'} ${paid} to ${purchase.vendorId} for "${purchase.title}"; receipt ` +
          `${view.receiptId} (${view.cite}${pending ? ', pending' : ''}); ` +
          `${formatMoney(left, mandate.currency)} left on mandate ${mandate.id}.`,
      ],
    };
  } catch (err) {
    if (err instanceof AppError && err.code === 'policyViolation') {
      const details = err.details as { reason?: string } | undefined;
      return gate(purchase, taskId, details?.reason ?? 'refused', err.message, details);
    }
    throw err;
  }
};
