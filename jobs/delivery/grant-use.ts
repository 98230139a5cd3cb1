import type { Deps } from '../../shared/deps.js';
import { getRun } from '../../shared/db/runs.js';
import { isProduction } from '../cicd/index.js';
import { separated } from '../approvals/index.js';
import type { StepInput } from '../step.js';
import { decideAutonomy, type AutonomyGrant, type AutonomyVerdict, type ProposedAction } from './autonomy.js';
import { drawGrant, getGrant, type GrantRow } from './grants-repository.js';
import { grantStatus } from './grants-service.js';

/** The grant a run acts under, as decideAutonomy reads it; `refusal` says why a named grant covers nothing. */
export interface RunGrant {
  grant: AutonomyGrant;
  grantId: string;
  refusal?: string;
}

/** The environment a run targets, as grants name it: environment-setup runs are `development`. */
export const grantEnvironment = (metadata: Record<string, unknown>) =>
  metadata.mode === 'environment'
    ? 'development'
    : typeof metadata.environment === 'string'
      ? metadata.environment
      : 'staging';

/**
 * Why `row` cannot cover a run submitted by `submitter` to `environment` (`self`: the submitter made it), or null when
 * it can.
 */
export async function grantRefusal(
  deps: Pick<Deps, 'db'>,
  row: GrantRow,
  submitter: string | null,
  environment: string,
) {
  const status = grantStatus(row);
  if (status !== 'active') return { self: false, message: `autonomy grant ${row.id} is ${status}` };
  const covers =
    row.environments.includes(environment) || (isProduction(environment) && row.environments.some(isProduction));
  if (!covers) {
    return {
      self: false,
      message:
        `autonomy grant ${row.id} does not cover environment ${environment} (it covers ` +
        `${row.environments.join(', ')})`,
    };
  }
  if (!(await separated(deps.db, row.account_id, row.created_by, submitter, 'autonomy'))) {
    return {
      self: true,
      message: `autonomy grant ${row.id} was made by the member who submitted the run; another approver must grant it`,
    };
  }
  return null;
}

/**
 * The run's grant, read from the account's records by the id the service
 * put in the run's metadata; an autonomy object in the run's own body is
 * never read. Undefined when the run names no grant.
 */
export async function runGrant(deps: Pick<Deps, 'db'>, input: StepInput): Promise<RunGrant | undefined> {
  const grantId = input.metadata.autonomyGrantId;
  if (typeof grantId !== 'string') return undefined;
  const row = await getGrant(deps.db, input.accountId, grantId);
  if (!row) return { grant: { enabled: false }, grantId, refusal: `autonomy grant ${grantId} does not exist` };
  const submitter = (await getRun(deps.db, input.accountId, input.runId))?.submitted_by ?? null;
  const refusal = await grantRefusal(deps, row, submitter, grantEnvironment(input.metadata));
  if (refusal) return { grant: { enabled: false }, grantId, refusal: refusal.message };
  return {
    grantId,
    grant: {
      enabled: true,
      allowedActions: row.allowed_actions,
      requireApproval: row.require_approval,
      allowCommands: row.allow_commands,
      dryRun: row.dry_run,
      workdir: row.workdir ?? undefined,
      maxActions: Math.min(row.max_actions, row.budget - row.used),
    },
  };
}

/**
 * Decides the actions under the run's grant and draws what it grants from the grant's budget (once per run); fail
 * closed.
 */
export async function decideUnderGrant(
  deps: Pick<Deps, 'db'>,
  runId: string,
  g: RunGrant,
  actions: ProposedAction[],
): Promise<AutonomyVerdict> {
  let verdict = decideAutonomy(g.grant, actions);
  if (verdict.granted && !(await drawGrant(deps.db, g.grantId, runId, verdict.budgetUsed))) {
    verdict = decideAutonomy({ ...g.grant, maxActions: 0 }, actions);
  }
  return g.refusal ? { ...verdict, reasons: [g.refusal] } : verdict;
}
