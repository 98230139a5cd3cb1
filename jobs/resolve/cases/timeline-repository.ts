import type { Db } from '../../../shared/db/knex.js';
import { proofCardsOfRuns } from '../../../shared/db/proof-cards.js';
import { missionsLinkedTo } from '../../proxy/index.js';

/**
 * A case's timeline: the entries written with each change (case_timeline),
 * and entries derived when read from what is linked to the case: the proof
 * card of each rest of a linked run, and the proxy missions of a linked run
 * or of the case's task. Ordered by `at`, then id, ascending.
 */

export interface TimelineRow {
  id: string;
  at: Date;
  /** `at` in microseconds since the epoch, as text: the cursor keeps Postgres' precision. */
  at_us: string;
  kind: string;
  actor: string;
  text: string;
  refs: Array<{ kind: string; id: string }>;
  data: Record<string, unknown>;
}

export interface NewEntry {
  caseId: string;
  accountId: string;
  kind: string;
  actor: string;
  text: string;
  refs?: Array<{ kind: string; id: string }>;
  data?: Record<string, unknown>;
  /** Default: now (the transaction's time). */
  at?: string;
}

export async function insertEntry(db: Db, id: string, e: NewEntry): Promise<void> {
  await db('case_timeline').insert({
    id,
    case_id: e.caseId,
    account_id: e.accountId,
    kind: e.kind,
    actor: e.actor,
    text: e.text,
    refs: JSON.stringify(e.refs ?? []),
    data: JSON.stringify(e.data ?? {}),
    ...(e.at ? { at: e.at } : {}),
  });
}

/** Its derived entries read the proof cards and missions through their owners' subqueries (the SQL stays there). */
const ENTRIES = `
  SELECT id, at, kind, actor, text, refs, data FROM case_timeline WHERE case_id = :caseId
  UNION ALL
  SELECT pc.id, pc.created_at, 'run.proofCard', 'run:' || pc.run_id, 'Run ' || pc.run_id ||
      ' came to rest with proof card ' || pc.id,
         jsonb_build_array(jsonb_build_object('kind', 'proofCard', 'id', pc.id), jsonb_build_object('kind', 'run',
             'id', pc.run_id)), '{}'::jsonb
  FROM :proofCards pc
  UNION ALL
  SELECT m.id, m.created_at, 'mission.linked', 'proxy', 'Proxy mission ' || m.id || ' (' || m.kind || ', ' ||
      m.reason || ') is ' || m.status,
         jsonb_build_array(jsonb_build_object('kind', 'mission', 'id', m.id), jsonb_build_object('kind', 'task',
             'id', m.task_id)), jsonb_build_object('status', m.status)
  FROM :missions m`;

const linkedRuns = (db: Db, caseId: string) => db('case_runs').where({ case_id: caseId }).select('run_id');

/** One page of the timeline after the cursor position (`at` in microseconds, id), and whether more follow. */
export async function timelinePage(
  db: Db,
  caseId: string,
  accountId: string,
  limit: number,
  after?: { atUs: string; id: string },
): Promise<{ rows: TimelineRow[]; more: boolean }> {
  const result = await db.raw(
    `SELECT * FROM (SELECT e.*, (extract(epoch FROM e.at) * 1000000)::bigint::text AS at_us FROM (${ENTRIES}) e) t
     ${after ? 'WHERE (t.at_us::bigint, t.id) > (:afterUs::bigint, :afterId)' : ''}
     ORDER BY t.at_us::bigint, t.id LIMIT :limit`,
    {
      caseId,
      proofCards: proofCardsOfRuns(db, linkedRuns(db, caseId)),
      missions: missionsLinkedTo(
        db,
        accountId,
        linkedRuns(db, caseId),
        db('cases').where({ id: caseId }).select('task_id'),
      ),
      limit: limit + 1,
      ...(after ? { afterUs: after.atUs, afterId: after.id } : {}),
    },
  );
  return { rows: result.rows.slice(0, limit), more: result.rows.length > limit };
}

/** One written entry, as the timeline shows it. */
export async function getEntry(db: Db, entryId: string): Promise<TimelineRow | null> {
  const result = await db.raw(
    `SELECT id, at, kind, actor, text, refs, data, (extract(epoch FROM at) * 1000000)::bigint::text AS at_us ` +
      `FROM case_timeline WHERE id = ?`,
    [entryId],
  );
  return result.rows[0] ?? null;
}
