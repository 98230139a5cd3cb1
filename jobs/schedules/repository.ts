import { claimStalePending } from '../../shared/db/stale-pending.js';
import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';
import { runIsLive } from '../../shared/db/runs.js';

export interface ScheduleRow {
  id: string;
  account_id: string;
  name: string;
  cron: string;
  timezone: string;
  target: Record<string, unknown>;
  overlap: string;
  catch_up: string;
  status: string;
  next_fire_at: Date;
  last_fired_at: Date | null;
  last_run_id: string | null;
  /**
   * The member who wrote it and the scopes it acts within (jobs/automation/grant.ts); null before grants were recorded.
   */
  created_by: string | null;
  grant_scopes: string[] | null;
  created_at: Date;
  updated_at: Date;
}

export interface FiringRow {
  id: string;
  account_id: string;
  schedule_id: string;
  scheduled_for: Date;
  trigger: string;
  missed: number;
  outcome: string;
  run_id: string | null;
  reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertSchedule(
  db: Db,
  row: Omit<ScheduleRow, 'created_at' | 'updated_at' | 'last_fired_at' | 'last_run_id' | 'status'>,
): Promise<ScheduleRow> {
  const [created] = await db('schedules')
    .insert({ ...row, target: JSON.stringify(row.target) })
    .returning('*');
  return created;
}

export async function getSchedule(
  db: Db,
  accountId: string,
  scheduleId: string,
  forUpdate = false,
): Promise<ScheduleRow | null> {
  const q = db('schedules').where({ id: scheduleId, account_id: accountId }).first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

export async function listSchedules(db: Db, accountId: string, f: { limit: number; cursor?: string }) {
  return page<ScheduleRow>(db('schedules').where({ account_id: accountId }), f.limit, f.cursor);
}

export async function setScheduleStatus(
  db: Db,
  scheduleId: string,
  status: string,
  nextFireAt?: Date,
): Promise<ScheduleRow> {
  const [row] = await db('schedules')
    .where({ id: scheduleId })
    .update({ status, ...(nextFireAt ? { next_fire_at: nextFireAt } : {}), updated_at: db.fn.now() })
    .returning('*');
  return row;
}

export async function deleteSchedule(db: Db, accountId: string, scheduleId: string): Promise<boolean> {
  return (await db('schedules').where({ id: scheduleId, account_id: accountId }).delete()) > 0;
}

/**
 * Active schedules whose tick is due, locked for this transaction. SKIP
 * LOCKED: a schedule another clock holds is left to it, so any number of
 * clocks claim disjoint sets, and each claim advances `next_fire_at` before
 * it commits: a tick is claimed by one clock, once.
 */
export async function claimDueSchedules(db: Db, now: Date, limit: number): Promise<ScheduleRow[]> {
  return db('schedules')
    .where('status', 'active')
    .andWhere('next_fire_at', '<=', now)
    .orderBy('next_fire_at')
    .limit(limit)
    .forUpdate()
    .skipLocked();
}

export async function advanceSchedule(db: Db, scheduleId: string, nextFireAt: Date, firedAt: Date): Promise<void> {
  await db('schedules')
    .where({ id: scheduleId })
    .update({ next_fire_at: nextFireAt, last_fired_at: firedAt, updated_at: db.fn.now() });
}

/**
 * Whether the schedule's last run is still going: a firing still starting, or a started run not in a terminal status.
 */
export async function hasRunningFiring(
  db: Db,
  schedule: Pick<ScheduleRow, 'id' | 'last_run_id'>,
  terminalStatuses: string[],
): Promise<boolean> {
  const result = await db.raw(
    `SELECT EXISTS (SELECT 1 FROM schedule_firings WHERE schedule_id = ? AND outcome = 'pending')
         OR ? AS running`,
    [schedule.id, runIsLive(db, schedule.last_run_id, terminalStatuses)],
  );
  return result.rows[0].running;
}

/**
 * Records a firing; null when this tick of the schedule has one already (the unique index; manual triggers are exempt).
 */
export async function insertFiring(
  db: Db,
  row: Omit<FiringRow, 'created_at' | 'updated_at' | 'run_id'>,
): Promise<FiringRow | null> {
  const [created] = await db
    .raw(
      `INSERT INTO schedule_firings (id, account_id, schedule_id, scheduled_for, trigger, missed, outcome, reason)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (schedule_id, scheduled_for) WHERE trigger <> 'manual' DO NOTHING RETURNING *`,
      [row.id, row.account_id, row.schedule_id, row.scheduled_for, row.trigger, row.missed, row.outcome, row.reason],
    )
    .then((r: { rows: FiringRow[] }) => r.rows);
  return created ?? null;
}

/** Records the outcome of a pending firing (and the schedule's last run); null when it was decided already. */
export async function settleFiring(
  db: Db,
  firingId: string,
  outcome: { outcome: string; runId: string | null; reason: string | null },
): Promise<FiringRow | null> {
  const [row] = await db('schedule_firings')
    .where({ id: firingId, outcome: 'pending' })
    .update({ outcome: outcome.outcome, run_id: outcome.runId, reason: outcome.reason, updated_at: db.fn.now() })
    .returning('*');
  if (row && outcome.runId) await db('schedules').where({ id: row.schedule_id }).update({ last_run_id: outcome.runId });
  return row ?? null;
}

export async function recentFirings(db: Db, scheduleId: string, limit: number): Promise<FiringRow[]> {
  return db('schedule_firings').where({ schedule_id: scheduleId }).orderBy('id', 'desc').limit(limit);
}

/** A firing by id (its account comes with it): what a start that lost its settle to another reads back. */
export async function getFiring(db: Db, firingId: string): Promise<FiringRow | null> {
  return (await db('schedule_firings').where({ id: firingId }).first()) ?? null;
}

/** Firings still `pending` a while after their last touch (their start was lost), claimed for the sweep. */
export function claimStalePendingFirings(db: Db, olderThanSeconds: number, limit: number): Promise<FiringRow[]> {
  return claimStalePending<FiringRow>(db, 'schedule_firings', olderThanSeconds, limit);
}
