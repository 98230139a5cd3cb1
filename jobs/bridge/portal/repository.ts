import type { Db } from '../../../shared/db/knex.js';
import { page } from '../../../shared/db/page.js';

/** Every SQL statement of portal sessions and portal actions. */

export interface PortalSessionRow {
  id: string;
  account_id: string;
  connector_id: string | null;
  target_origin: string;
  credentials: { usernameRef?: string; passwordRef?: string; totpSeedRef?: string };
  scope: { origins: string[]; paths: string[] };
  mfa_method: string;
  preflight: {
    status: string;
    errors: Array<{ check: string; message: string; ref?: string; variable?: string }>;
    at: string;
  } | null;
  created_at: Date;
}

export interface PortalActionRow {
  id: string;
  account_id: string;
  session_id: string;
  template_id: string | null;
  playbook_id: string | null;
  status: string;
  steps: unknown[];
  inputs: Record<string, string>;
  artefacts: unknown[];
  extracted: Record<string, unknown>;
  blocked: { reason: string; message: string; step: number | null; errors?: unknown[] } | null;
  error: string | null;
  /** Runs asked for (`run`); the job of each is `<id>.<attempt>`. 0: created, nobody asked to run it yet. */
  attempts: number;
  created_at: Date;
  /** Since when it rests in its status. */
  updated_at: Date;
  finished_at: Date | null;
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

export async function insertPortalSession(
  db: Db,
  row: Omit<PortalSessionRow, 'created_at' | 'preflight'>,
): Promise<PortalSessionRow> {
  const [out] = await db('portal_sessions')
    .insert({ ...row, credentials: json(row.credentials), scope: json(row.scope) })
    .returning('*');
  return out;
}

export async function getPortalSession(db: Db, accountId: string, id: string): Promise<PortalSessionRow | null> {
  return (await db('portal_sessions').where({ account_id: accountId, id }).first()) ?? null;
}

export async function listPortalSessions(db: Db, accountId: string, limit: number, cursor?: string) {
  return page<PortalSessionRow>(db('portal_sessions').where({ account_id: accountId }), limit, cursor);
}

export async function setPortalPreflight(
  db: Db,
  id: string,
  preflight: NonNullable<PortalSessionRow['preflight']>,
): Promise<void> {
  await db('portal_sessions')
    .where({ id })
    .update({ preflight: json(preflight) });
}

export type NewPortalAction = Pick<
  PortalActionRow,
  'id' | 'account_id' | 'session_id' | 'template_id' | 'playbook_id' | 'status' | 'steps' | 'inputs'
>;

export async function insertPortalActions(db: Db, rows: NewPortalAction[]): Promise<PortalActionRow[]> {
  return db('portal_actions')
    .insert(rows.map((r) => ({ ...r, steps: json(r.steps), inputs: json(r.inputs) })))
    .returning('*');
}

export async function getPortalAction(
  db: Db,
  accountId: string,
  id: string,
  forUpdate = false,
): Promise<PortalActionRow | null> {
  const q = db('portal_actions').where({ account_id: accountId, id }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

export async function listPortalActions(
  db: Db,
  accountId: string,
  filter: { status?: string; portalSessionId?: string },
  limit: number,
  cursor?: string,
) {
  const q = db('portal_actions').where({ account_id: accountId });
  if (filter.status) q.andWhere({ status: filter.status });
  if (filter.portalSessionId) q.andWhere({ session_id: filter.portalSessionId });
  return page<PortalActionRow>(q, limit, cursor);
}

/**
 * Moves an action from one of `from` to `to` (a compare-and-set, so two runs cannot both start); null when it was not
 * in `from`, or not at `attempt` when one is given (a run that outlived its claim settles nothing).
 */
export async function movePortalAction(
  db: Db,
  id: string,
  from: string[],
  to: string,
  result: Partial<Pick<PortalActionRow, 'artefacts' | 'extracted' | 'blocked' | 'error'>> & { finished?: boolean } = {},
  attempt?: number,
): Promise<PortalActionRow | null> {
  const change: Record<string, unknown> = { status: to, updated_at: db.fn.now() };
  if (result.artefacts !== undefined) change.artefacts = json(result.artefacts);
  if (result.extracted !== undefined) change.extracted = json(result.extracted);
  if (result.blocked !== undefined) change.blocked = json(result.blocked);
  if (result.error !== undefined) change.error = result.error;
  if (result.finished !== undefined) change.finished_at = result.finished ? db.fn.now() : null;
  const q = db('portal_actions').where({ id }).whereIn('status', from);
  if (attempt !== undefined) q.andWhere({ attempts: attempt });
  const [row] = await q.update(change).returning('*');
  return row ?? null;
}

/**
 * Asks for a run: a created action nobody asked to run yet (`queued`, attempt 0), or a `failed` or `blocked` one,
 * becomes `queued` for one more attempt, cleared of its last run's results. Null when it was in none of those.
 */
export async function queuePortalRun(db: Db, id: string): Promise<PortalActionRow | null> {
  const [row] = await db('portal_actions')
    .where({ id })
    .andWhereRaw(`((status = 'queued' AND attempts = 0) OR status IN ('failed', 'blocked'))`)
    .update({
      status: 'queued',
      attempts: db.raw('attempts + 1'),
      artefacts: json([]),
      extracted: json({}),
      blocked: null,
      error: null,
      finished_at: null,
      updated_at: db.fn.now(),
    })
    .returning('*');
  return row ?? null;
}

/** The worker's claim of `attempt`: `queued` at that attempt becomes `running` (a compare-and-set); null otherwise. */
export async function claimPortalRun(db: Db, id: string, attempt: number): Promise<PortalActionRow | null> {
  const [row] = await db('portal_actions')
    .where({ id, status: 'queued', attempts: attempt })
    .update({ status: 'running', updated_at: db.fn.now() })
    .returning('*');
  return row ?? null;
}

/** Fails `attempt` if it is still `running` (its worker died mid-run); null otherwise. */
export async function failInterruptedRun(
  db: Db,
  id: string,
  attempt: number,
  error: string,
): Promise<PortalActionRow | null> {
  const [row] = await db('portal_actions')
    .where({ id, status: 'running', attempts: attempt })
    .update({ status: 'failed', error, finished_at: db.fn.now(), updated_at: db.fn.now() })
    .returning('*');
  return row ?? null;
}

/**
 * Actions whose job may be lost, oldest first: asked to run and `queued` for `overdueSeconds`, or `running` for
 * `runningMs` (a run's own limit) plus that long.
 */
export async function portalActionsOverdue(
  db: Db,
  at: { overdueSeconds: number; runningMs: number },
  limit: number,
): Promise<PortalActionRow[]> {
  return db('portal_actions')
    .whereIn('status', ['queued', 'running'])
    .andWhere('attempts', '>', 0)
    .andWhereRaw(
      `((status = 'queued' AND updated_at < now() - make_interval(secs => ?))
        OR (status = 'running' AND updated_at < now() - make_interval(secs => ?)))`,
      [at.overdueSeconds, at.overdueSeconds + at.runningMs / 1000],
    )
    .orderBy('updated_at')
    .limit(limit);
}

/** Keeps a screenshot by its SHA-256 (content-addressed: the same image is stored once). */
export async function storeScreenshot(db: Db, sha256: string, png: Buffer): Promise<void> {
  await db('portal_screenshots').insert({ sha256, png }).onConflict('sha256').ignore();
}

export async function getScreenshot(db: Db, sha256: string): Promise<Buffer | null> {
  return ((await db('portal_screenshots').where({ sha256 }).first('png')) as { png: Buffer } | undefined)?.png ?? null;
}
