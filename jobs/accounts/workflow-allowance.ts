import { takeMonthlyQuota, takeUnverifiedAllowance } from './repository.js';
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

/**
 * Admits one workflow request (orchestrator, template and domain POSTs) or
 * refuses it: an account that has not activated gets `UNVERIFIED_REQUEST_LIMIT`
 * of them in total, and a builder-plan account `BUILDER_MONTHLY_RUNS` a month.
 * Operator (admin) tokens are exempt.
 * Both counters move in one transaction so a refusal never consumes the other.
 */
export async function admitWorkflowRequest(deps: Deps, principal: Principal): Promise<void> {
  const { UNVERIFIED_REQUEST_LIMIT, BUILDER_MONTHLY_RUNS } = deps.config;
  if (principal.activated && principal.plan === 'team') return; // nothing to count
  if (isOperator(principal)) return; // not counted either: operator load is not a customer's usage
  await deps.db.transaction(async (trx) => {
    if (!principal.activated && !(await takeUnverifiedAllowance(trx, principal.accountId, UNVERIFIED_REQUEST_LIMIT))) {
      throw forbidden(
        `This starter token is limited to ${UNVERIFIED_REQUEST_LIMIT} workflow requests until the account is ` +
          `activated: POST /v1/profiles/activate with the activationToken from the activation mail`,
      );
    }
    if (
      principal.plan === 'builder' &&
      !(await takeMonthlyQuota(trx, principal.accountId, usagePeriod(), BUILDER_MONTHLY_RUNS))
    ) {
      throw new AppError(
        'quotaExceeded',
        `The builder plan's ${BUILDER_MONTHLY_RUNS} orchestration runs for ${usagePeriod()} are used up; the ` +
          `team plan is unlimited`,
        { plan: 'builder', limit: BUILDER_MONTHLY_RUNS, period: usagePeriod() },
        { 'Retry-After': String(secondsToNextPeriod()) },
      );
    }
  });
}
