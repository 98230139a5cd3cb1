import type { Deps } from '../../shared/deps.js';
import { connectorsWithCapability } from '../../shared/db/connectors.js';

type Obj = Record<string, any>;

/** Files the migration analyzer reads (SQL, or files under a migrations folder) and code the security analyzer reads. */
export const MIGRATION_FILE = /(^|\/)(migrations?|db\/migrate)\/[^/]+\.(sql|js|ts|rb|py)$|\.sql$/i;
const CODE_FILE = /\.(js|mjs|cjs|ts|tsx|jsx|py|go|rb|java|kt|rs|php|cs)$/i;

/**
 * Issue 15's analyzers in the validate stage. HOOK: while the `migration`
 * and `security` domains have no step (pending), runs skip them and the
 * validate stage says so; once they are built, they join the route of any
 * delivery whose files call for them, read `metadata.files` (and
 * `metadata.migrations` as `[{ id, sql }]`), and a `verdict: "blocked"`,
 * `blocked: true` or `safe: false` in their output fails the stage.
 */
export function analyzersFor(files: Record<string, string>): Array<'migration' | 'security'> {
  const paths = Object.keys(files);
  return [...(paths.some((p) => MIGRATION_FILE.test(p)) ? ['migration' as const] : []), ...(paths.some((p) => CODE_FILE.test(p)) ? ['security' as const] : [])];
}

export function validateAnalyzers(prior: Record<string, Obj>, files: Record<string, string>): { analyzers: Record<string, Obj>; unavailable: string[] } {
  const analyzers: Record<string, Obj> = {};
  const unavailable: string[] = [];
  for (const d of analyzersFor(files)) {
    if (prior[d]) analyzers[d] = prior[d];
    else unavailable.push(`${d} analysis skipped: the files call for it, and the ${d} domain is not available in this service yet`);
  }
  return { analyzers, unavailable };
}

/**
 * The account's CI connector (capability `ci.trigger`, not disabled). HOOK:
 * dispatching a workflow through it (with the run id as idempotency key) is
 * not built yet, so even with one the deploy stays a dry run and says why.
 */
export async function ciConnector(deps: Deps, accountId: string, runId: string, dryRunAsked: boolean): Promise<{ connectorId: string; dispatched: boolean; note: string } | null> {
  const row = (await connectorsWithCapability(deps.db, accountId, 'ci.trigger', 10)).find((c) => c.status !== 'disabled');
  if (!row) return null;
  const note = dryRunAsked ? `the autonomy grant asked for a dry run (CI connector ${row.connector_id} is configured)` : `CI connector ${row.connector_id} is configured, but live dispatch through it is not built yet (idempotency key ${runId})`;
  return { connectorId: row.connector_id, dispatched: false, note };
}
