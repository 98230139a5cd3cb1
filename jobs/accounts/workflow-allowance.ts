import {
  giveBackMonthlyQuota,
  giveBackUnverifiedAllowance,
  takeMonthlyQuota,
  takeUnverifiedAllowance,
} from './repository.js';
import type { Deps } from '../../shared/deps.js';
import { AppError, forbidden } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { isOperator } from '../../shared/auth/operator.js';

/** `2026-11`: the calendar month (UTC) a workflow request counts against. */
export function usagePeriod(now = new Date()): string {
  return now.toISOString().slice(0, 7);
}

/** Seconds until the next calendar month (UTC), when a used-up monthly quota is whole again: its `Retry-After`. */
export function secondsToNextPeriod(now = new Date()): number {
  return Math.max(1, Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000));
}

/** What admitting one workflow request took: given back when the request is refused for load. */
export interface WorkflowAdmission {
  accountId: string;
  /** One of the starter allowance's requests. */
  unverified: boolean;
  /** One of the month's quota (its period), or null. */
  period: string | null;
}

/**
 * Admits one workflow request (orchestrator, template and domain POSTs) or
 * refuses it: an account that has not activated gets `UNVERIFIED_REQUEST_LIMIT`
 * of them in total, and a builder-plan account `BUILDER_MONTHLY_RUNS` a month.
 * Operator (admin) tokens are exempt.
 * Both counters move in one transaction so a refusal never consumes the other.
 * Returns what it took (null: nothing), for `giveBackWorkflowRequest`.
 */
export async function admitWorkflowRequest(deps: Deps, principal: Principal): Promise<WorkflowAdmission | null> {
  const { UNVERIFIED_REQUEST_LIMIT, BUILDER_MONTHLY_RUNS } = deps.config;
  if (principal.activated && principal.plan === 'team') return null; // nothing to count
  if (isOperator(principal)) return null; // not counted either: operator load is not a customer's usage
  return deps.db.transaction(async (trx) => {
    const allowance = principal.activated
      ? { admitted: true, taken: false }
      : await takeUnverifiedAllowance(trx, principal.accountId, UNVERIFIED_REQUEST_LIMIT);
    if (!allowance.admitted) {
      throw forbidden(
        `This starter token is limited to ${UNVERIFIED_REQUEST_LIMIT} workflow requests until the account is ` +
          `activated: POST /v1/profiles/activate with the activationToken from the activation mail`,
      );
    }
    const period = usagePeriod();
    if (
      principal.plan === 'builder' &&
      !(await takeMonthlyQuota(trx, principal.accountId, period, BUILDER_MONTHLY_RUNS))
    ) {
      throw new AppError(
        'quotaExceeded',
        `The builder plan's ${BUILDER_MONTHLY_RUNS} orchestration runs for ${period} are used up; the ` +
          `team plan is unlimited`,
        { plan: 'builder', limit: BUILDER_MONTHLY_RUNS, period },
        { 'Retry-After': String(secondsToNextPeriod()) },
      );
    }
    return {
      accountId: principal.accountId,
      unverified: allowance.taken,
      period: principal.plan === 'builder' ? period : null,
    };
  });
}

/**
 * Gives back what admitting a request took, when the request was refused for load (shared/errors.ts, Backpressure)
 * and nothing of it was accepted: a client told to retry later does not pay for each try. Never throws: the refusal
 * is the answer, and a give-back Postgres did not take costs the account one request.
 */
export async function giveBackWorkflowRequest(deps: Deps, taken: WorkflowAdmission | null): Promise<void> {
  if (!taken || (!taken.unverified && !taken.period)) return;
  try {
    await deps.db.transaction(async (trx) => {
      if (taken.unverified) await giveBackUnverifiedAllowance(trx, taken.accountId);
      if (taken.period) await giveBackMonthlyQuota(trx, taken.accountId, taken.period);
    });
  } catch (err) {
    deps.log.warn({ accountId: taken.accountId, err: (err as Error).message }, 'workflow request not given back');
  }
}
