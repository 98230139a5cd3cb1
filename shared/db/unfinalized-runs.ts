import type { Db } from './knex.js';

/**
 * Runs that ended (canceled or failed) at least `graceSec` ago, within the last day, whose segment has no `final`
 * event: their finalizer never ran (a cancel of a run in flight whose job Redis lost, a finalize job lost with it).
 * `runs_events_untrimmed` (finished_at, where events are kept) serves the range; a day bounds the scan, and the
 * sweep that reads this runs every minute.
 */
export async function unfinalizedRuns(db: Db, graceSec: number, limit: number): Promise<string[]> {
  const result = await db.raw(
    `SELECT r.id FROM runs r
     WHERE r.finished_at IS NOT NULL AND r.events_trimmed_at IS NULL
       AND r.finished_at BETWEEN now() - interval '1 day' AND now() - make_interval(secs => ?::float8)
       AND r.status IN ('canceled', 'failed')
       AND NOT EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id AND e.type = 'final'
                       AND (e.data->>'segment')::int = r.segment)
     ORDER BY r.finished_at LIMIT ?`,
    [graceSec, limit],
  );
  return result.rows.map((r: { id: string }) => r.id);
}
