import type { Deps } from '../../shared/deps.js';
import {
  deleteFinishedDeliveries,
  deleteIdempotencyKeys,
  deleteMails,
  hashMailBodies,
  trimRunEvents,
  trimRunSteps,
} from '../../shared/db/retention.js';
import {
  createRunEventPartitions,
  dropRunEventPartition,
  expiredPartitions,
  keepFinalEvents,
  keepUnfinishedRunEvents,
  runEventPartitions,
} from '../../shared/db/run-event-partitions.js';
import { TERMINAL_STATUSES } from '../orchestrator/run-state.js';

/**
 * Retention: what the service stops keeping, and when (the *_RETENTION_*
 * settings). Each sweep deletes in batches of RETENTION_BATCH_SIZE, one
 * statement each, and stops after MAX_BATCHES so one clock tick stays short;
 * a backlog (retention switched on over a large table) drains over the next
 * ticks instead.
 */
const MAX_BATCHES = 50;

/** Runs `batch` until it handles fewer than a full batch, or MAX_BATCHES times; returns the total it reported. */
async function drain(
  size: number,
  batch: () => Promise<{ handled: number; deleted: number }>,
): Promise<{ deleted: number; batches: number }> {
  let deleted = 0;
  let batches = 0;
  while (batches < MAX_BATCHES) {
    const r = await batch();
    batches++;
    deleted += r.deleted;
    if (r.handled < size) break;
  }
  return { deleted, batches };
}

/**
 * run_events by the week (shared/db/run-event-partitions.ts): creates the coming weeks' partitions, then drops each
 * week older than RUN_EVENTS_RETENTION_DAYS, once what must outlive it is moved to run_events_kept: the events of
 * runs that have not finished, and every `final` event (in batches; a week with more finals than one sweep's
 * batches is dropped by a later sweep). Partitions an interrupted sweep left detaching or detached are dropped first.
 */
export async function sweepRunEventPartitions(deps: Pick<Deps, 'db' | 'config'>, now = new Date()) {
  const size = deps.config.RETENTION_BATCH_SIZE;
  const created = await createRunEventPartitions(deps.db, now);
  const { attached, leftovers } = await runEventPartitions(deps.db);
  const dropped: string[] = [];
  for (const { name, state } of leftovers) {
    await dropRunEventPartition(deps.db, name, state);
    dropped.push(name);
  }
  let kept = 0;
  const cutoff = new Date(now.getTime() - deps.config.RUN_EVENTS_RETENTION_DAYS * 86_400_000);
  for (const week of expiredPartitions(attached, cutoff)) {
    kept += await keepUnfinishedRunEvents(deps.db, week);
    const finals = await drain(size, async () => {
      const n = await keepFinalEvents(deps.db, week, size);
      return { handled: n, deleted: n };
    });
    kept += finals.deleted;
    if (finals.deleted === finals.batches * size) break; // every batch was full: the next sweep goes on with this week
    await dropRunEventPartition(deps.db, week.name, 'attached');
    dropped.push(week.name);
  }
  return { created, kept, dropped };
}

/**
 * Kept events (moved out of a dropped week while their run was unfinished) of runs finished more than
 * RUN_EVENTS_RETENTION_DAYS ago, except each run's `final` events.
 */
export async function sweepRunEvents(deps: Pick<Deps, 'db' | 'config'>) {
  const size = deps.config.RETENTION_BATCH_SIZE;
  return drain(size, async () => {
    const r = await trimRunEvents(deps.db, {
      olderThanDays: deps.config.RUN_EVENTS_RETENTION_DAYS,
      terminal: TERMINAL_STATUSES,
      batch: size,
    });
    return { handled: r.runs, deleted: r.deleted };
  });
}

/** Step rows of runs finished more than RUN_STEPS_RETENTION_DAYS ago. */
export async function sweepRunSteps(deps: Pick<Deps, 'db' | 'config'>) {
  const size = deps.config.RETENTION_BATCH_SIZE;
  return drain(size, async () => {
    const r = await trimRunSteps(deps.db, {
      olderThanDays: deps.config.RUN_STEPS_RETENTION_DAYS,
      terminal: TERMINAL_STATUSES,
      batch: size,
    });
    return { handled: r.runs, deleted: r.deleted };
  });
}

/** Delivery chains whose last attempt finished more than DELIVERY_RETENTION_DAYS ago. */
export async function sweepDeliveries(deps: Pick<Deps, 'db' | 'config'>) {
  const size = deps.config.RETENTION_BATCH_SIZE;
  return drain(size, async () => {
    // A batch picks `size` chains; its count is of attempts, which is at least that many when the batch was full.
    const deleted = await deleteFinishedDeliveries(deps.db, {
      olderThanDays: deps.config.DELIVERY_RETENTION_DAYS,
      batch: size,
    });
    return { handled: deleted, deleted };
  });
}

/** Mail bodies past MAIL_BODY_RETENTION_HOURS become their hash; mail rows past MAIL_RETENTION_DAYS go. */
export async function sweepMails(deps: Pick<Deps, 'db' | 'config'>) {
  const size = deps.config.RETENTION_BATCH_SIZE;
  const hashed = await drain(size, async () => {
    const n = await hashMailBodies(deps.db, { olderThanHours: deps.config.MAIL_BODY_RETENTION_HOURS, batch: size });
    return { handled: n, deleted: n };
  });
  const deleted = await drain(size, async () => {
    const n = await deleteMails(deps.db, { olderThanDays: deps.config.MAIL_RETENTION_DAYS, batch: size });
    return { handled: n, deleted: n };
  });
  return { bodiesHashed: hashed.deleted, deleted: deleted.deleted };
}

/** Idempotency keys past IDEMPOTENCY_TTL_HOURS: they replay nothing any more. */
export async function sweepIdempotencyKeys(deps: Pick<Deps, 'db' | 'config'>) {
  const size = deps.config.RETENTION_BATCH_SIZE;
  return drain(size, async () => {
    const n = await deleteIdempotencyKeys(deps.db, { olderThanHours: deps.config.IDEMPOTENCY_TTL_HOURS, batch: size });
    return { handled: n, deleted: n };
  });
}
