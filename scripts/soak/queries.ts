import type { Db } from '../../shared/db/knex.js';
import type { Attempt, RunEventCounts, RunFacts } from './exactly-once.js';

/** The soak's reads of Postgres for its checks: the account's runs, their events, the delivery ledger, automation. */

const counted = (rows: Array<{ k: string; n: number | string }>) => new Map(rows.map((r) => [r.k, Number(r.n)]));

export async function runFacts(db: Db, accountId: string): Promise<{ runs: RunFacts[]; counts: RunEventCounts }> {
  const runs = (await db('runs').where({ account_id: accountId }).select('id', 'status', 'segment')) as RunFacts[];
  const finals = await db.raw(
    `SELECT run_id || ':' || (data->>'segment') AS k, count(*) AS n FROM run_events
     WHERE account_id = ? AND type = 'final' GROUP BY 1`,
    [accountId],
  );
  const steps = await db.raw(
    `SELECT data->>'stepId' AS k, count(*) AS n FROM run_events
     WHERE account_id = ? AND type = 'handoff' AND data->>'phase' = 'complete' GROUP BY 1`,
    [accountId],
  );
  const terminal = await db.raw(
    `SELECT payload->>'runId' AS k, count(*) AS n FROM events
     WHERE account_id = ? AND type IN ('run.completed', 'run.failed', 'run.canceled') GROUP BY 1`,
    [accountId],
  );
  return {
    runs,
    counts: {
      finals: counted(finals.rows),
      stepCompletions: counted(steps.rows),
      terminalEvents: counted(terminal.rows),
    },
  };
}

/** Ready benchmark runs with what their current segment's `final` holds, to check each digest. */
export async function benchmarkResults(db: Db, accountId: string) {
  const r = await db.raw(
    `SELECT r.id, cardinality(r.route) AS steps, (r.input->'metadata'->>'hashes')::int AS hashes,
            e.data->'result'->'results'->'benchmark'->>'digest' AS digest
     FROM runs r JOIN run_events e ON e.run_id = r.id AND e.type = 'final' AND (e.data->>'segment')::int = r.segment
     WHERE r.account_id = ? AND r.status = 'ready' AND r.route[1] = 'benchmark'`,
    [accountId],
  );
  return r.rows as Array<{ id: string; steps: number; hashes: number | null; digest: string | null }>;
}

/** Runs by status (for the report). */
export async function runStatuses(db: Db, accountId: string): Promise<Record<string, number>> {
  const rows: Array<{ status: string; n: string }> = (
    await db.raw('SELECT status, count(*) AS n FROM runs WHERE account_id = ? GROUP BY 1', [accountId])
  ).rows;
  return Object.fromEntries(rows.map((r) => [String(r.status), Number(r.n)]));
}

/** The ledger: every attempt of the account, and the events each subscription could have matched. */
export async function ledger(db: Db, accountId: string, subscriptionIds: string[]) {
  const attempts = (
    await db('deliveries')
      .where({ account_id: accountId })
      .select('id', 'root_id', 'parent_id', 'attempt', 'status', 'event_id', 'subscription_id')
  ).map((a): Attempt => ({
    id: a.id,
    rootId: a.root_id,
    parentId: a.parent_id,
    attempt: a.attempt,
    status: a.status,
    eventId: a.event_id,
    subscriptionId: a.subscription_id,
  }));
  const events = new Map<string, Array<{ id: string; type: string }>>();
  for (const id of subscriptionIds) {
    const rows = await db.raw(
      `SELECT e.id, e.type FROM events e JOIN subscriptions s ON s.id = ?
       WHERE e.account_id = ? AND e.created_at >= s.created_at`,
      [id, accountId],
    );
    events.set(id, rows.rows);
  }
  return { attempts, events };
}

/** What is still moving: runs not at rest, delivery attempts queued or claimed (due within `horizonS`). */
export async function unsettled(db: Db, accountId: string, horizonS: number) {
  const runs = await db('runs').where({ account_id: accountId }).whereIn('status', ['queued', 'running']).count({
    n: '*',
  });
  const deliveries = await db('deliveries')
    .where({ account_id: accountId })
    .whereIn('status', ['queued', 'claimed'])
    .where('next_attempt_at', '<', db.raw(`now() + make_interval(secs => ?)`, [horizonS]))
    .count({ n: '*' });
  const automation = await automationPending(db, accountId);
  return { runs: Number(runs[0]!.n), deliveries: Number(deliveries[0]!.n), automation };
}

async function automationPending(db: Db, accountId: string): Promise<number> {
  const f = await db('schedule_firings').where({ account_id: accountId, outcome: 'pending' }).count({ n: '*' });
  const m = await db('signal_matches').where({ account_id: accountId, outcome: 'pending' }).count({ n: '*' });
  return Number(f[0]!.n) + Number(m[0]!.n);
}

/** Schedule firings and signal matches by outcome. */
export async function automation(db: Db, accountId: string) {
  const by = async (table: string): Promise<Record<string, number>> => {
    const rows: Array<{ outcome: string; n: string }> = (
      await db.raw(`SELECT outcome, count(*) AS n FROM ${table} WHERE account_id = ? GROUP BY 1`, [accountId])
    ).rows;
    return Object.fromEntries(rows.map((r) => [r.outcome, Number(r.n)]));
  };
  return { firings: await by('schedule_firings'), matches: await by('signal_matches') };
}
