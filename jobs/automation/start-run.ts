import { admitWorkflowRequest, getAccountStanding, giveBackWorkflowRequest } from '../accounts/index.js';
import type { Deps } from '../../shared/deps.js';
import { getRun } from '../../shared/db/runs.js';
import { AppError, Backpressure } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { submitRun } from '../orchestrator/index.js';
import { runTemplate } from '../workflows/index.js';
import { firingGrant, type CreatorGrant } from './grant.js';
import { withOrigin, type RunTarget } from './target.js';

const UNIQUE_VIOLATION = '23505';

/**
 * The id of the run a signal match or a schedule firing starts, fixed by the record's own (`smt_<uuid>` →
 * `run_<uuid>`): a UUIDv7 is never made twice, so no other run can hold it.
 */
export const runIdOf = (originId: string): string => `run_${originId.slice(originId.indexOf('_') + 1)}`;

/** How an attempt to start a rule's or a schedule's run ended; recorded on the match or firing. */
export type StartOutcome = { outcome: 'started'; runId: string } | { outcome: 'refused' | 'failed'; reason: string };

/**
 * Starts the run a signal rule or a schedule names, for its account. There
 * is no request token, so the account itself is admitted: the same
 * unverified allowance and monthly quota a workflow request counts against
 * (jobs/accounts/workflow-allowance.ts). A refusal (quota, allowance, the
 * account's hold full, a domain queue too deep: 429/503) and a
 * failure to start (a domain not available, a template input that no longer
 * fits) are answers to record, never thrown: the caller writes them on the
 * match or firing. `origin` lands in the run's metadata under `awp`. The run
 * acts within `grant`, its creator's, intersected with the creator's current
 * role (jobs/automation/grant.ts); a creator no longer able to is a refusal.
 *
 * Starts at most once per `originId` (the match's or firing's id): the run's
 * id is fixed by it (`runIdOf`), so a second attempt (the sweep's, after a
 * crash between the record's commit and its outcome) finds the run the first
 * one made and answers it, or loses the insert to it on the primary key.
 */
export async function startAutomatedRun(
  deps: Deps,
  accountId: string,
  target: RunTarget,
  grant: CreatorGrant,
  origin: Record<string, unknown> & { startedBy: string },
  originId: string,
): Promise<StartOutcome> {
  const runId = runIdOf(originId);
  if (await getRun(deps.db, accountId, runId)) return { outcome: 'started', runId };
  const account = await getAccountStanding(deps.db, accountId);
  if (!account) return { outcome: 'failed', reason: 'account not found' };
  // The run acts within its creator's grant (as it stands now), never beyond: the run records these scopes.
  const acting = await firingGrant(deps, accountId, grant);
  if ('refused' in acting) return { outcome: 'refused', reason: acting.refused };
  const principal: Principal = {
    accountId,
    tokenId: origin.startedBy,
    ...(acting.memberId ? { memberId: acting.memberId, role: acting.role } : {}),
    scopes: acting.scopes,
    plan: account.plan,
    activated: account.status === 'active',
  };
  let taken;
  try {
    taken = await admitWorkflowRequest(deps, principal);
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return { outcome: 'refused', reason: err.message };
    throw err;
  }
  try {
    const start = withOrigin(target, origin);
    const run =
      'templateId' in start
        ? await runTemplate(deps, principal, start.templateId, start.body as Parameters<typeof runTemplate>[3], runId)
        : await submitRun(deps, principal, start.request, runId);
    return { outcome: 'started', runId: run.id };
  } catch (err) {
    // Another attempt inserted this run first (the request's and the sweep's at once): it started, once, and is
    // counted once.
    if ((err as { code?: string }).code === UNIQUE_VIOLATION && (await getRun(deps.db, accountId, runId))) {
      await giveBackWorkflowRequest(deps, taken);
      return { outcome: 'started', runId };
    }
    // Refused for load (the account's hold is full, a queue too deep): nothing started, nothing counted; the
    // refusal, with its reason, is the firing's or match's outcome.
    if (err instanceof Backpressure) {
      await giveBackWorkflowRequest(deps, taken);
      return { outcome: 'refused', reason: err.message };
    }
    if (err instanceof AppError && err.status < 500) return { outcome: 'failed', reason: err.message };
    deps.log.error(
      { accountId, startedBy: origin.startedBy, err: (err as Error).message },
      'automated run did not start',
    );
    return { outcome: 'failed', reason: 'internal error starting the run' };
  }
}
