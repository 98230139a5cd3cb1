import type { Deps } from '../../shared/deps.js';
import { getRun, getRunById, listRuns, type RunFilters, type RunRow } from '../../shared/db/runs.js';
import { notFound } from '../../shared/errors.js';
import { runDetail, runSummary } from './views.js';

/** The caller's run, or 404 (another account's run is as unknown as a missing one). */
export async function findRun(deps: Pick<Deps, 'db'>, accountId: string, runId: string): Promise<RunRow> {
  const run = await getRun(deps.db, accountId, runId);
  if (!run) throw notFound(`Run ${runId}`);
  return run;
}

export async function runDetailFor(deps: Pick<Deps, 'db'>, accountId: string, runId: string) {
  return runDetail(deps, await findRun(deps, accountId, runId));
}

export async function runPage(deps: Pick<Deps, 'db'>, accountId: string, filters: RunFilters) {
  const { rows, nextCursor } = await listRuns(deps.db, accountId, filters);
  return { runs: rows.map(runSummary), nextCursor };
}

/** A run's current status, read without an owner check (the caller has just created or resumed it). */
export async function currentStatus(deps: Pick<Deps, 'db'>, runId: string): Promise<string | null> {
  return (await getRunById(deps.db, runId))?.status ?? null;
}
