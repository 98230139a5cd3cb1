import type { Deps } from '../../shared/deps.js';
import {
  deleteSchedule,
  getSchedule,
  insertSchedule,
  listSchedules,
  recentFirings,
  setScheduleStatus,
  type FiringRow,
  type ScheduleRow,
} from './repository.js';
import { conflict, invalidPayload, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { creatorGrant, checkTarget, type RunTarget } from '../automation/index.js';
import { recordFiring, startFiring } from './firing.js';
import { nextFireTimes, scheduleProblem } from './logic.js';
import type { ScheduleCreate } from './schemas.js';

/**
 * Creates a schedule after checking its cron, zone and target (400 naming
 * what is wrong); its first tick is the next one after now. It records its
 * creator's grant, which its runs act within (403 unless the creator could
 * start the target directly).
 */
export async function createSchedule(deps: Deps, principal: Principal, body: ScheduleCreate): Promise<ScheduleRow> {
  const timezone = body.timezone ?? 'UTC';
  const problem = scheduleProblem(body.cron, timezone);
  if (problem) throw invalidPayload(problem, { path: problem.startsWith('timezone') ? '/timezone' : '/cron' });
  const grant = creatorGrant(principal, 'A schedule');
  return insertSchedule(deps.db, {
    ...grant,
    id: newId('sch'),
    account_id: principal.accountId,
    name: body.name ?? body.cron,
    cron: body.cron.trim(),
    timezone,
    target: checkTarget(body.target) as Record<string, unknown>,
    overlap: body.overlap ?? 'skip',
    catch_up: body.catchUp ?? 'none',
    next_fire_at: nextFireTimes(body.cron, timezone, new Date(), 1)[0]!,
  });
}

export async function fetchSchedule(
  deps: Deps,
  principal: Principal,
  scheduleId: string,
): Promise<{ schedule: ScheduleRow; nextFireTimes: Date[]; recentFirings: FiringRow[] }> {
  const schedule = await getSchedule(deps.db, principal.accountId, scheduleId);
  if (!schedule) throw notFound(`Schedule ${scheduleId}`);
  const upcoming =
    schedule.status === 'active'
      ? [schedule.next_fire_at, ...nextFireTimes(schedule.cron, schedule.timezone, schedule.next_fire_at, 4)]
      : [];
  return { schedule, nextFireTimes: upcoming, recentFirings: await recentFirings(deps.db, schedule.id, 10) };
}

export async function findSchedules(deps: Deps, principal: Principal, query: { limit?: number; cursor?: string }) {
  return listSchedules(deps.db, principal.accountId, { limit: query.limit ?? 50, cursor: query.cursor });
}

/** Pauses an active schedule: it fires no tick until resumed. 409 when it is paused already. */
export async function pauseSchedule(deps: Deps, principal: Principal, scheduleId: string): Promise<ScheduleRow> {
  return deps.db.transaction(async (trx) => {
    const schedule = await getSchedule(trx, principal.accountId, scheduleId, true);
    if (!schedule) throw notFound(`Schedule ${scheduleId}`);
    if (schedule.status === 'paused') throw conflict(`Schedule ${scheduleId} is paused already`);
    return setScheduleStatus(trx, scheduleId, 'paused');
  });
}

/**
 * Resumes a paused schedule from the next tick after now: ticks that passed while it was paused are not caught up. 409
 * when it is active.
 */
export async function resumeSchedule(deps: Deps, principal: Principal, scheduleId: string): Promise<ScheduleRow> {
  return deps.db.transaction(async (trx) => {
    const schedule = await getSchedule(trx, principal.accountId, scheduleId, true);
    if (!schedule) throw notFound(`Schedule ${scheduleId}`);
    if (schedule.status === 'active') throw conflict(`Schedule ${scheduleId} is active already`);
    return setScheduleStatus(
      trx,
      scheduleId,
      'active',
      nextFireTimes(schedule.cron, schedule.timezone, new Date(), 1)[0]!,
    );
  });
}

export async function removeSchedule(deps: Deps, principal: Principal, scheduleId: string): Promise<void> {
  if (!(await deleteSchedule(deps.db, principal.accountId, scheduleId))) throw notFound(`Schedule ${scheduleId}`);
}

/**
 * Fires the schedule now, outside its cron (paused ones too): a `manual`
 * firing, under the same overlap policy and account admission as a tick.
 * The schedule's row is locked while the firing is recorded, so a trigger
 * and a clock tick see each other's pending firing.
 */
export async function triggerSchedule(deps: Deps, principal: Principal, scheduleId: string): Promise<FiringRow> {
  const { firing, target, grant } = await deps.db.transaction(async (trx) => {
    const schedule = await getSchedule(trx, principal.accountId, scheduleId, true);
    if (!schedule) throw notFound(`Schedule ${scheduleId}`);
    return {
      firing: (await recordFiring(trx, schedule, { scheduledFor: new Date(), trigger: 'manual', missed: 0 }))!,
      target: schedule.target as RunTarget,
      grant: schedule,
    };
  });
  return firing.outcome === 'pending' ? startFiring(deps, firing, target, grant) : firing;
}
