import type { Deps } from '../../shared/deps.js';
import { connectorsWithCapability, getAction, checkAction, enqueueAction, writeAction } from '../bridge/index.js';
import { AppError } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';

type Obj = Record<string, any>;

/**
 * Files the migration analyzer reads (SQL, or files under a migrations folder) and code the security analyzer reads.
 */
export const MIGRATION_FILE = /(^|\/)(migrations?|db\/migrate)\/[^/]+\.(sql|js|ts|rb|py)$|\.sql$/i;
const CODE_FILE = /\.(js|mjs|cjs|ts|tsx|jsx|py|go|rb|java|kt|rs|php|cs)$/i;

/**
 * The migration and security analyzers in the validate stage: they join the
 * route of any delivery whose files call for them, read `metadata.files`
 * (and `metadata.migrations` as `[{ id, sql }]`), and a `verdict: "block"`
 * in their output fails the stage. A service built without them says so.
 */
export function analyzersFor(files: Record<string, string>): Array<'migration' | 'security'> {
  const paths = Object.keys(files);
  return [
    ...(paths.some((p) => MIGRATION_FILE.test(p)) ? ['migration' as const] : []),
    ...(paths.some((p) => CODE_FILE.test(p)) ? ['security' as const] : []),
  ];
}

export function validateAnalyzers(
  prior: Record<string, Obj>,
  files: Record<string, string>,
): { analyzers: Record<string, Obj>; unavailable: string[] } {
  const analyzers: Record<string, Obj> = {};
  const unavailable: string[] = [];
  for (const d of analyzersFor(files)) {
    if (prior[d]) analyzers[d] = prior[d];
    else
      unavailable.push(
        `${d} analysis skipped: the files call for it, and the ${d} domain is not available in this service yet`,
      );
  }
  return { analyzers, unavailable };
}

/**
 * The account's CI connector (capability `ci.trigger`, not disabled), or
 * null: without one every deploy is a dry run. `dryRunAsked`: an autonomy
 * grant asked for one, so nothing is sent even with a connector.
 */
export async function ciConnector(
  deps: Deps,
  accountId: string,
  runId: string,
  dryRunAsked: boolean,
  want: { connectorId?: string; github?: boolean } = {},
): Promise<{ connectorId: string; kind: string; dispatched: boolean; note: string } | null> {
  const usable = (await connectorsWithCapability(deps.db, accountId, 'ci.trigger', 10)).filter(
    (c) => c.status !== 'disabled',
  );
  // The connector the run names, else a GitHub one when the run names a workflow, else the newest.
  const row = want.connectorId
    ? usable.find((c) => c.connector_id === want.connectorId)
    : ((want.github ? usable.find((c) => c.kind === 'github') : undefined) ?? usable[0]);
  if (!row) return null;
  const note = dryRunAsked
    ? `the autonomy grant asked for a dry run (CI connector ${row.connector_id} is configured)`
    : `CI connector ${row.connector_id} is configured (idempotency key ${runId})`;
  return { connectorId: row.connector_id, kind: row.kind, dispatched: false, note };
}

/**
 * Sends the deploy through the CI connector as a bridge action (capability
 * `ci.trigger`), once per run: the action's id, which is also the
 * Idempotency-Key the provider sees on every attempt, is derived from the run,
 * so a retried step finds the action it made instead of making another. The
 * bridge's own checks (policy, scope, references) run first; a refusal sends
 * nothing and is returned, so the deploy stays a dry run saying why.
 * `principal` is the run's grant (jobs/orchestrator/run-grant.ts).
 */
export async function dispatchDeploy(
  deps: Deps,
  principal: Principal,
  runId: string,
  connectorId: string,
  input: Record<string, unknown>,
  opts: { capability?: string; id?: string } = {},
): Promise<{ actionId: string } | { refused: string }> {
  const { accountId } = principal;
  const id = opts.id ?? `bac_${runId.replace(/^run_/, '')}`;
  const capability = opts.capability ?? 'ci.trigger';
  const existing = await getAction(deps.db, accountId, id);
  if (existing) {
    // Written by an earlier attempt of this step; queue it again only if it never got to run (a retried enqueue adds
    // nothing).
    if (existing.status === 'queued' && existing.attempts === 0) await enqueueAction(deps, existing);
    return { actionId: id };
  }
  try {
    const checked = await checkAction(deps, principal, { connectorId, capability, input });
    const row = await writeAction(deps.db, accountId, checked, `run:${runId}`, id);
    await enqueueAction(deps, row);
    return { actionId: row.id };
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return { refused: err.message };
    throw err;
  }
}
