import type { Knex } from 'knex';
import type { Db } from './knex.js';

/*
 * run_events is partitioned (migrations/20261129005000_run_events_partitions.ts):
 *
 *   run_events                 LIST (kept)
 *   ├─ run_events_kept         kept: rows moved out of a week before it was dropped (never dropped)
 *   └─ run_events_by_week      not kept: RANGE (created_at), one partition per ISO week, UTC
 *      ├─ run_events_until_YYYYMMDD   everything written before the partitioning (MINVALUE to that Monday)
 *      └─ run_events_wYYYYMMDD        the week starting that Monday
 *
 * Writers insert as before (kept defaults to false), so each event lands in the week it was written. Retention
 * (jobs/clock/retention.ts) drops a whole week once it is older than RUN_EVENTS_RETENTION_DAYS, after moving what must
 * outlive it into run_events_kept: every `final` event (how a run ended, read by followers, resumes and sync waits)
 * and the events of runs that have not finished (a follower of a live run reads its events from the first; a gap
 * would stop it). DDL here waits at most LOCK_TIMEOUT for a lock and is retried on the next sweep rather than queue
 * the service's statements behind it.
 */

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
const LOCK_TIMEOUT = '500ms';
/** Serialises partition DDL between processes (migrate at start-up, the clock's sweep). */
const DDL_LOCK = "pg_advisory_xact_lock(hashtext('run_events partitions'))";
const NAME = /^run_events_(w|until_)(\d{4})(\d{2})(\d{2})$/;

export const BY_WEEK = 'run_events_by_week';
/** Weeks created ahead of the current one, so a clock that is down for a while never leaves events without a home. */
export const WEEKS_AHEAD = 4;

export interface RunEventPartition {
  name: string;
  /** Inclusive; null for the table from before the partitioning. */
  from: Date | null;
  /** Exclusive. */
  to: Date;
}

/** Monday 00:00 UTC of the week `at` falls in. */
export function weekStart(at: Date): Date {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  return new Date(day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS);
}

const ymd = (d: Date) => d.toISOString().slice(0, 10).replace(/-/g, '');
export const weekPartitionName = (start: Date) => `run_events_w${ymd(start)}`;
export const untilPartitionName = (to: Date) => `run_events_until_${ymd(to)}`;
/** A timestamp as a SQL literal: partition bounds and DDL take no bind parameters. */
export const sqlTime = (d: Date) => `'${d.toISOString()}'::timestamptz`;

/** The range a partition's name stands for, or null for a name that is not one of ours. */
export function partitionRange(name: string): RunEventPartition | null {
  const m = NAME.exec(name);
  if (!m) return null;
  const at = new Date(Date.UTC(Number(m[2]), Number(m[3]) - 1, Number(m[4])));
  return m[1] === 'w' ? { name, from: at, to: new Date(at.getTime() + WEEK_MS) } : { name, from: null, to: at };
}

/** Where a partition is on its way out: still attached, half detached (an interrupted DETACH), or detached. */
export type PartitionState = 'attached' | 'pending' | 'detached';

/** The week partitions attached now, oldest first; and those an interrupted sweep left detaching or detached. */
export async function runEventPartitions(
  db: Db,
): Promise<{ attached: RunEventPartition[]; leftovers: Array<{ name: string; state: PartitionState }> }> {
  const result = await db.raw(
    `SELECT c.relname AS name, i.inhdetachpending AS pending
     FROM pg_class c LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
     WHERE c.relname ~ '^run_events_(w|until_)[0-9]{8}$' AND c.relkind = 'r'
       AND c.relnamespace = current_schema()::regnamespace`,
  );
  const rows = result.rows as Array<{ name: string; pending: boolean | null }>;
  const attached = rows
    .filter((r) => r.pending === false)
    .map((r) => partitionRange(r.name)!)
    .sort((a, b) => a.to.getTime() - b.to.getTime());
  const leftovers = rows
    .filter((r) => r.pending !== false)
    .map((r) => ({ name: r.name, state: r.pending ? ('pending' as const) : ('detached' as const) }));
  return { attached, leftovers };
}

/**
 * Creates the week partitions from the newest one's end through WEEKS_AHEAD weeks after `now`'s, leaving no gap.
 * Each is built apart and attached (ATTACH takes SHARE UPDATE EXCLUSIVE on the parent, so reads and writes go on;
 * CREATE … PARTITION OF would take ACCESS EXCLUSIVE). Returns the names created.
 */
export async function createRunEventPartitions(db: Knex, now: Date, ahead = WEEKS_AHEAD): Promise<string[]> {
  const until = new Date(weekStart(now).getTime() + (ahead + 1) * WEEK_MS);
  const created: string[] = [];
  for (;;) {
    const made = await db.transaction(async (trx) => {
      await trx.raw(`SELECT ${DDL_LOCK}`);
      const { attached } = await runEventPartitions(trx);
      const last = attached.at(-1)?.to ?? weekStart(now);
      if (last.getTime() >= until.getTime()) return null;
      const name = weekPartitionName(last);
      const from = sqlTime(last);
      const to = sqlTime(new Date(last.getTime() + WEEK_MS));
      await trx.raw(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      await trx.raw(`CREATE TABLE ${name} (LIKE ${BY_WEEK} INCLUDING DEFAULTS)`);
      // Implies the partition's bounds, so ATTACH does not scan for rows outside them.
      await trx.raw(
        `ALTER TABLE ${name} ADD CONSTRAINT ${name}_range CHECK (NOT kept AND created_at >= ${from} AND ` +
          `created_at < ${to})`,
      );
      await trx.raw(`ALTER TABLE ${BY_WEEK} ATTACH PARTITION ${name} FOR VALUES FROM (${from}) TO (${to})`);
      return name;
    });
    if (!made) return created;
    created.push(made);
  }
}

/** Week partitions wholly older than `cutoff`: nothing in them is newer than the retention. */
export function expiredPartitions(attached: RunEventPartition[], cutoff: Date): RunEventPartition[] {
  return attached.filter((p) => p.to.getTime() <= cutoff.getTime());
}

/** The partition's rows as a predicate that prunes an UPDATE on run_events to that partition alone. */
function within(p: RunEventPartition): string {
  return `NOT e.kept AND e.created_at < ${sqlTime(p.to)}${p.from ? ` AND e.created_at >= ${sqlTime(p.from)}` : ''}`;
}

/**
 * Moves the events in `p` of runs that have not finished into run_events_kept, in one statement: such runs are
 * few, found through runs_unfinished, and each of their events through the partition's key.
 */
export async function keepUnfinishedRunEvents(db: Db, p: RunEventPartition): Promise<number> {
  const result = await db.raw(
    `UPDATE run_events e SET kept = true FROM runs r
     WHERE r.finished_at IS NULL AND r.created_at < ${sqlTime(p.to)} AND e.run_id = r.id AND ${within(p)}`,
  );
  return result.rowCount ?? 0;
}

/**
 * Moves up to `batch` of the `final` events in `p` into run_events_kept (found through the partition's finals index).
 */
export async function keepFinalEvents(db: Db, p: RunEventPartition, batch: number): Promise<number> {
  const result = await db.raw(
    `WITH picked AS (SELECT run_id, seq FROM ${p.name} WHERE type = 'final' LIMIT ?)
     UPDATE run_events e SET kept = true FROM picked
     WHERE e.run_id = picked.run_id AND e.seq = picked.seq AND ${within(p)}`,
    [batch],
  );
  return result.rowCount ?? 0;
}

/**
 * Detaches `name` (CONCURRENTLY: SHARE UPDATE EXCLUSIVE on the parent; FINALIZE when an earlier detach was
 * interrupted) unless it is detached already, then drops it. Dropping a table with a foreign key takes ACCESS
 * EXCLUSIVE on `runs` for an instant; with the lock timeout the drop gives way instead of stalling runs.
 */
export async function dropRunEventPartition(db: Knex, name: string, state: PartitionState): Promise<void> {
  if (state !== 'detached') {
    const connection = await db.client.acquireConnection();
    try {
      await db.raw(`SET lock_timeout = '${LOCK_TIMEOUT}'`).connection(connection);
      await db
        .raw(`ALTER TABLE ${BY_WEEK} DETACH PARTITION ${name} ${state === 'pending' ? 'FINALIZE' : 'CONCURRENTLY'}`)
        .connection(connection);
    } finally {
      await db
        .raw('RESET lock_timeout')
        .connection(connection)
        .catch(() => undefined);
      await db.client.releaseConnection(connection);
    }
  }
  await db.transaction(async (trx) => {
    await trx.raw(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    await trx.raw(`DROP TABLE IF EXISTS ${name}`);
  });
}
