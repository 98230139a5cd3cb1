import type { Db } from './knex.js';

/*
 * Retention deletes. Each call is one statement that handles at most `batch`
 * items, so a sweep holds locks briefly and can stop between batches; the
 * caller loops. Each picks its rows through a partial or ordered index
 * (migrations/20261122008802_list_and_retention_indexes.ts), so a batch costs
 * the same whether the table holds a thousand rows or a hundred million.
 */

export interface RunTrim {
  olderThanDays: number;
  /** The run statuses that are final (the run state machine's terminal ones). */
  terminal: string[];
  /** Runs per batch. */
  batch: number;
}

/**
 * Deletes the kept events of finished runs, except their `final` events (a
 * stream or a waiting client of an old run still learns how it ended), and
 * marks the runs trimmed so the next batch starts after them. Kept events are
 * those moved out of a week partition before it was dropped because their run
 * had not finished (shared/db/run-event-partitions.ts); the others go with
 * their week, which costs no DELETE.
 */
export async function trimRunEvents(db: Db, o: RunTrim): Promise<{ runs: number; deleted: number }> {
  const result = await db.raw(
    `WITH picked AS (
       SELECT id FROM runs
       WHERE finished_at IS NOT NULL AND events_trimmed_at IS NULL
         AND finished_at < now() - make_interval(days => ?) AND status = ANY(?::text[])
       ORDER BY finished_at LIMIT ? FOR UPDATE SKIP LOCKED),
     gone AS (DELETE FROM run_events e USING picked
         WHERE e.run_id = picked.id AND e.kept AND e.type <> 'final' RETURNING 1),
     marked AS (UPDATE runs r SET events_trimmed_at = now() FROM picked WHERE r.id = picked.id RETURNING 1)
     SELECT (SELECT count(*) FROM marked)::int AS runs, (SELECT count(*) FROM gone)::int AS deleted`,
    [o.olderThanDays, o.terminal, o.batch],
  );
  return result.rows[0];
}

/** Deletes the step rows of finished runs (their outputs live on in the run's results and proof card). */
export async function trimRunSteps(db: Db, o: RunTrim): Promise<{ runs: number; deleted: number }> {
  const result = await db.raw(
    `WITH picked AS (
       SELECT id FROM runs
       WHERE finished_at IS NOT NULL AND steps_trimmed_at IS NULL
         AND finished_at < now() - make_interval(days => ?) AND status = ANY(?::text[])
       ORDER BY finished_at LIMIT ? FOR UPDATE SKIP LOCKED),
     gone AS (DELETE FROM run_steps s USING picked WHERE s.run_id = picked.id RETURNING 1),
     marked AS (UPDATE runs r SET steps_trimmed_at = now() FROM picked WHERE r.id = picked.id RETURNING 1)
     SELECT (SELECT count(*) FROM marked)::int AS runs, (SELECT count(*) FROM gone)::int AS deleted`,
    [o.olderThanDays, o.terminal, o.batch],
  );
  return result.rows[0];
}

/**
 * Deletes whole retry chains whose last attempt finished before the cutoff
 * (earlier attempts of a chain always finished before its last one began).
 * A chain is deleted together because each retry references its parent; the
 * last attempt is locked SKIP LOCKED, so a retry being created on it right
 * now keeps its chain for the next sweep. Returns the attempts deleted.
 */
export async function deleteFinishedDeliveries(db: Db, o: { olderThanDays: number; batch: number }): Promise<number> {
  const result = await db.raw(
    `WITH ended AS (
       SELECT d.root_id FROM deliveries d
       WHERE d.finished_at IS NOT NULL AND d.finished_at < now() - make_interval(days => ?)
         AND d.status IN ('completed', 'failed', 'canceled')
         AND NOT EXISTS (SELECT 1 FROM deliveries c WHERE c.parent_id = d.id)
       ORDER BY d.finished_at LIMIT ? FOR UPDATE SKIP LOCKED)
     DELETE FROM deliveries WHERE root_id IN (SELECT root_id FROM ended)`,
    [o.olderThanDays, o.batch],
  );
  return result.rowCount ?? 0;
}

/**
 * Replaces the body of mails older than the cutoff that still hold one by
 * its SHA-256: the activation token inside stops being readable, the hash
 * still proves what was sent.
 */
export async function hashMailBodies(db: Db, o: { olderThanHours: number; batch: number }): Promise<number> {
  // `= ANY(ARRAY(…))` rather than `IN (…)`: the batch's ids are then looked up by primary key; with IN the planner may
  // hash-join a whole-table scan.
  const result = await db.raw(
    `UPDATE outbound_mails SET body_sha256 = encode(sha256(convert_to(text_body, 'UTF8')), 'hex'), text_body = NULL
     WHERE id = ANY(ARRAY(SELECT id FROM outbound_mails WHERE text_body IS NOT NULL
         AND created_at < now() - make_interval(hours => ?)
                          ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED))`,
    [o.olderThanHours, o.batch],
  );
  return result.rowCount ?? 0;
}

export async function deleteMails(db: Db, o: { olderThanDays: number; batch: number }): Promise<number> {
  const result = await db.raw(
    `DELETE FROM outbound_mails WHERE id = ANY(ARRAY(
       SELECT id FROM outbound_mails WHERE created_at < now() - make_interval(days => ?) ORDER BY created_at LIMIT ?
           FOR UPDATE SKIP LOCKED))`,
    [o.olderThanDays, o.batch],
  );
  return result.rowCount ?? 0;
}

/**
 * Idempotency keys past their replay window (they would be ignored and
 * replaced on their next use anyway). The key is two columns, so the batch
 * is named by row address (ctid, a TID scan); the rows are locked by the
 * inner SELECT, so their addresses cannot change before the DELETE.
 */
export async function deleteIdempotencyKeys(db: Db, o: { olderThanHours: number; batch: number }): Promise<number> {
  const result = await db.raw(
    `DELETE FROM idempotency_keys WHERE ctid = ANY(ARRAY(
       SELECT ctid FROM idempotency_keys WHERE created_at < now() - make_interval(hours => ?) ORDER BY created_at
           LIMIT ? FOR UPDATE SKIP LOCKED))`,
    [o.olderThanHours, o.batch],
  );
  return result.rowCount ?? 0;
}
