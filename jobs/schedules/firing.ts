import type { Deps } from '../../shared/deps.js';
import { recordEvent } from '../../shared/db/outbox.js';
import {
  advanceSchedule,
  claimDueSchedules,
  claimStalePendingFirings,
  getFiring,
  getSchedule,
  hasRunningFiring,
  insertFiring,
  settleFiring,
  type FiringRow,
  type ScheduleRow,
} from './repository.js';
import type { Db } from '../../shared/db/knex.js';
import { newId } from '../../shared/ids.js';
import { type FiringTrigger, type CreatorGrant, startAutomatedRun, type RunTarget } from '../automation/index.js';
import { wakeDispatcher } from '../events/index.js';
import { TERMINAL_STATUSES } from '../orchestrator/index.js';
import { planTick, type CatchUp } from './logic.js';

/** Schedules one claim takes at most; the rest wait for the next tick (or another clock). */
const CLAIM_BATCH = 50;
/** How long a firing may stay `pending` before the sweep takes its start as lost (a start takes well under it). */
export const PENDING_FIRING_AGE_SECONDS = 30;
/** Firings one sweep takes at most; a backlog drains over the next sweeps. */
const SWEEP_BATCH = 100;

/**
 * One clock tick of the schedules, run by every clock process: claims what
 * is due and records its firings (`claimTick`), then each pending firing
 * asks for its run (outside the claim: a run start writes and enqueues on
 * its own) and records the outcome with its `schedule.fired` event. A
 * process that dies between the two leaves the firing `pending`; the
 * `schedules.pending` sweep starts it (never twice: see startFiring).
 */
export async function fireDueSchedules(deps: Deps, now = new Date()): Promise<{ claimed: number; started: number }> {
  const { claimed, pending } = await claimTick(deps, now);
  let started = 0;
  for (const { firing, target, grant } of pending)
    if ((await startFiring(deps, firing, target, grant)).outcome === 'started') started++;
  return { claimed, started };
}

/**
 * In one transaction: claim the due schedules (FOR UPDATE SKIP LOCKED),
 * record one firing per schedule for its latest due tick (pending, or
 * skipped for overlap, or missed under catchUp none), and advance
 * next_fire_at past now. A schedule another clock holds is skipped, and once
 * that clock commits its tick is no longer due: each tick fires once
 * whatever the number of clocks. Answers the pending firings to start.
 */
export async function claimTick(deps: Deps, now = new Date()) {
  const graceMs = deps.config.SCHEDULE_MISFIRE_GRACE_SECONDS * 1000;
  let claimed = 0;
  const pending = await deps.db.transaction(async (trx) => {
    const toStart: Array<{ firing: FiringRow; target: RunTarget; grant: CreatorGrant }> = [];
    for (const schedule of await claimDueSchedules(trx, now, CLAIM_BATCH)) {
      claimed++;
      const plan = planTick(
        {
          cron: schedule.cron,
          timezone: schedule.timezone,
          catchUp: schedule.catch_up as CatchUp,
          nextFireAt: schedule.next_fire_at,
        },
        now,
        graceMs,
      );
      await advanceSchedule(trx, schedule.id, plan.nextFireAt, plan.scheduledFor);
      const firing = await recordFiring(trx, schedule, {
        scheduledFor: plan.scheduledFor,
        trigger: plan.trigger,
        missed: plan.missed,
        missedTick: plan.action === 'missed',
      });
      if (firing?.outcome === 'pending')
        toStart.push({ firing, target: schedule.target as RunTarget, grant: schedule });
    }
    return toStart;
  });
  return { claimed, pending };
}

/**
 * Writes a firing in the caller's transaction: `pending` when its run is to
 * start, else settled at once with its event (`missed`, `skippedOverlap`).
 * Null when the tick has a firing already.
 */
export async function recordFiring(
  trx: Db,
  schedule: ScheduleRow,
  f: { scheduledFor: Date; trigger: FiringTrigger; missed: number; missedTick?: boolean },
): Promise<FiringRow | null> {
  const overlapping =
    !f.missedTick && schedule.overlap === 'skip' && (await hasRunningFiring(trx, schedule, TERMINAL_STATUSES));
  const outcome = f.missedTick ? 'missed' : overlapping ? 'skippedOverlap' : 'pending';
  const reason = f.missedTick
    ? `no clock ran at this tick (catchUp none): ${f.missed} tick${f.missed === 1 ? '' : 's'} not run`
    : overlapping
      ? 'the previous run of this schedule has not finished (overlap skip)'
      : null;
  const firing = await insertFiring(trx, {
    id: newId('sfr'),
    account_id: schedule.account_id,
    schedule_id: schedule.id,
    scheduled_for: f.scheduledFor,
    trigger: f.trigger,
    missed: f.missed,
    outcome,
    reason,
  });
  if (firing && outcome !== 'pending') await recordFired(trx, firing);
  return firing;
}

/**
 * Starts a pending firing's run within the schedule's recorded grant and records what came of it, with its event, in
 * one transaction. At most once per firing whoever calls it and however often: the run's id is fixed by the firing's
 * (jobs/automation/start-run.ts), and only a `pending` firing is settled.
 */
export async function startFiring(
  deps: Deps,
  firing: FiringRow,
  target: RunTarget,
  grant: CreatorGrant,
): Promise<FiringRow> {
  const started = await startAutomatedRun(
    deps,
    firing.account_id,
    target,
    grant,
    {
      startedBy: `schedule:${firing.schedule_id}`,
      scheduleId: firing.schedule_id,
      firingId: firing.id,
      scheduledFor: firing.scheduled_for.toISOString(),
      trigger: firing.trigger,
    },
    firing.id,
  );
  const result = await deps.db.transaction(async (trx) => {
    const row = await settleFiring(trx, firing.id, {
      outcome: started.outcome,
      runId: started.outcome === 'started' ? started.runId : null,
      reason: started.outcome === 'started' ? null : started.reason,
    });
    return row ? { row, deliveries: (await recordFired(trx, row)).deliveries } : null;
  });
  if (result?.deliveries) await wakeDispatcher(deps);
  // Settled by the other attempt meanwhile: answer what it recorded.
  return result?.row ?? (await getFiring(deps.db, firing.id)) ?? firing;
}

/**
 * The `schedules.pending` sweep: starts the firings a clock (or a manual
 * trigger) committed and then died before starting, or before recording how
 * the start went, each once. A pending firing also holds back its schedule's
 * next ticks under overlap `skip`, so without this one lost start would stop
 * such a schedule for good.
 */
export async function sweepPendingFirings(deps: Deps): Promise<{ taken: number; started: number }> {
  const taken = await claimStalePendingFirings(deps.db, PENDING_FIRING_AGE_SECONDS, SWEEP_BATCH);
  let started = 0;
  for (const firing of taken) {
    const schedule = await getSchedule(deps.db, firing.account_id, firing.schedule_id);
    if (!schedule) continue; // deleted: its firings went with it
    const row = await startFiring(deps, firing, schedule.target as RunTarget, schedule);
    if (row.outcome === 'started') started++;
  }
  if (taken.length > 0) deps.log.info({ taken: taken.length, started }, 'pending schedule firings started');
  return { taken: taken.length, started };
}

function recordFired(trx: Db, f: FiringRow) {
  return recordEvent(trx, {
    accountId: f.account_id,
    type: 'schedule.fired',
    subject: f.schedule_id,
    payload: {
      scheduleId: f.schedule_id,
      firingId: f.id,
      scheduledFor: new Date(f.scheduled_for).toISOString(),
      trigger: f.trigger,
      outcome: f.outcome,
      missed: f.missed,
      runId: f.run_id,
      reason: f.reason,
    },
  });
}
