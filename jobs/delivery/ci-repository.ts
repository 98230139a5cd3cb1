import type { Db } from '../../shared/db/knex.js';

/** A delivery run's deploy as a GitHub Actions run, followed until its run is resumed with the outcome. */
export interface CiRunRow {
  run_id: string;
  account_id: string;
  connector_id: string;
  owner: string;
  repo: string;
  workflow: string;
  ref: string;
  action_id: string;
  gh_run_id: string | null;
  html_url: string | null;
  attempt: number;
  rerun_action_id: string | null;
  status: string;
  conclusion: string | null;
  failed_jobs: unknown[] | null;
  checks: number;
  checked_at: Date | null;
  resumed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Written by the deploy step after its dispatch action; a retried step finds the row its first attempt wrote. */
export async function insertCiRun(
  db: Db,
  row: Pick<CiRunRow, 'run_id' | 'account_id' | 'connector_id' | 'owner' | 'repo' | 'workflow' | 'ref' | 'action_id'>,
): Promise<void> {
  await db('delivery_ci_runs').insert(row).onConflict('run_id').ignore();
}

export async function getCiRun(db: Db, accountId: string, runId: string, forUpdate = false): Promise<CiRunRow | null> {
  const q = db('delivery_ci_runs').where({ run_id: runId, account_id: accountId }).first();
  return ((await (forUpdate ? q.forUpdate() : q)) as CiRunRow | undefined) ?? null;
}

/** The follow of a run, whoever's (the fast follow's job carries only the run id). */
export async function ciRunOf(db: Db, runId: string): Promise<CiRunRow | null> {
  return ((await db('delivery_ci_runs').where({ run_id: runId }).first()) as CiRunRow | undefined) ?? null;
}

/**
 * Follows not yet resumed and not checked for `minAgeSeconds`, least recently checked first, claimed by moving their
 * `checked_at` (SKIP LOCKED: two sweeps at once share the rows instead of both reading GitHub for each).
 */
export async function claimDueCiRuns(db: Db, minAgeSeconds: number, limit: number): Promise<CiRunRow[]> {
  return db.transaction(async (trx) => {
    const due: CiRunRow[] = await trx('delivery_ci_runs')
      .whereNull('resumed_at')
      .andWhereRaw('(checked_at IS NULL OR checked_at <= now() - make_interval(secs => ?))', [minAgeSeconds])
      .orderByRaw('checked_at NULLS FIRST')
      .limit(limit)
      .forUpdate()
      .skipLocked();
    if (due.length)
      await trx('delivery_ci_runs')
        .whereIn(
          'run_id',
          due.map((r) => r.run_id),
        )
        .update({ checked_at: trx.fn.now() });
    return due;
  });
}

/** What a check read: the workflow run found, its state; `checked_at` moves so the next sweep takes others first. */
export async function noteCiCheck(
  db: Db,
  runId: string,
  fields: Partial<Pick<CiRunRow, 'gh_run_id' | 'html_url' | 'status' | 'conclusion' | 'failed_jobs'>>,
): Promise<void> {
  await db('delivery_ci_runs')
    .where({ run_id: runId })
    .update({
      ...fields,
      ...(fields.failed_jobs !== undefined ? { failed_jobs: JSON.stringify(fields.failed_jobs) } : {}),
      checks: db.raw('checks + 1'),
      checked_at: db.fn.now(),
      updated_at: db.fn.now(),
    });
}

/** The run was resumed with the outcome: the follow is done (until a re-run asks for the next attempt). */
export async function markCiResumed(db: Db, runId: string): Promise<void> {
  await db('delivery_ci_runs').where({ run_id: runId }).update({ resumed_at: db.fn.now(), updated_at: db.fn.now() });
}

/** A re-run of the failed jobs was asked for: follow the next attempt of the same workflow run. */
export async function followRerun(db: Db, runId: string, rerunActionId: string, attempt: number): Promise<void> {
  await db('delivery_ci_runs').where({ run_id: runId }).update({
    rerun_action_id: rerunActionId,
    attempt,
    status: 'rerunning',
    conclusion: null,
    failed_jobs: null,
    resumed_at: null,
    checked_at: null,
    updated_at: db.fn.now(),
  });
}
