import { BENCH_ACCOUNT, benchToken, runOnce } from './awp-client.js';
import { stats, type BenchEnv } from './env.js';
import { meanTimes, statementTimes } from './pg-stats.js';

const PREFIX = 'bstored';

/**
 * Bulk-inserts `count` finished 3-step runs of the bench account, as the
 * engine leaves them: the run, `events` run events, three steps, a proof
 * card and the outbox event, created over the last 90 days (ids sort by
 * creation, as UUIDv7 ids do), one statement per table.
 */
async function insertOldRuns(env: BenchEnv, count: number, events: number): Promise<void> {
  const db = env.deps.db;
  const id = (p: string) => `'${p}_${PREFIX}_' || lpad(g::text, 9, '0')`;
  const created = `now() - interval '1 hour' - make_interval(secs => (${count} - g) * 7.776e6 / ${count})`;
  await db.transaction(async (trx) => {
    await trx.raw(
      `INSERT INTO runs (id, account_id, status, request, input, route, routing, results, created_at,
        updated_at, finished_at)
      SELECT ${id('run')}, ?, CASE WHEN g % 20 = 0 THEN 'failed' ELSE 'ready' END,
          'find an espresso machine under $120', '{}', '{hunt,resolve,resolve}', '{"source":"explicit"}',
        '{"status":"ready","results":[]}', ${created}, ${created}, ${created}
      FROM generate_series(1, ?) g`,
      [BENCH_ACCOUNT, count],
    );
    await trx.raw(
      `INSERT INTO run_events (run_id, seq, account_id, type, data, created_at)
      SELECT ${id('run')}, k, ?, CASE WHEN k = ? THEN 'final' WHEN k = 1 THEN 'trace' ELSE 'handoff' END, '{}',
          ${created}
      FROM generate_series(1, ?) g, generate_series(1, ?) k`,
      [BENCH_ACCOUNT, events, count, events],
    );
    const domain = `(ARRAY['hunt', 'resolve', 'resolve'])[k + 1]`;
    await trx.raw(
      `INSERT INTO run_steps (id, run_id, account_id, segment, idx, domain, status, output, started_at,
        heartbeat_at, finished_at)
      SELECT ${id('run')} || '.0.' || k || '.' || ${domain}, ${id('run')}, ?, 0, k, ${domain}, 'completed', '{}',
          ${created}, ${created}, ${created}
      FROM generate_series(1, ?) g, generate_series(0, 2) k`,
      [BENCH_ACCOUNT, count],
    );
    await trx.raw(
      `INSERT INTO proof_cards (id, account_id, run_id, decision_id, card, decision, created_at)
      SELECT ${id('card')}, ?, ${id('run')}, ${id('dec')}, '{}', '{}', ${created} FROM generate_series(1, ?) g`,
      [BENCH_ACCOUNT, count],
    );
    await trx.raw(
      `INSERT INTO events (id, account_id, type, subject, payload, created_at, fanned_out_at)
      SELECT ${id('evt')}, ?, 'run.completed', ${id('run')}, '{}', ${created}, ${created} FROM generate_series(1, ?) g`,
      [BENCH_ACCOUNT, count],
    );
  });
  // Measure the tables as a long-lived database has them, not while autovacuum and a checkpoint catch up with the load.
  await db.raw('VACUUM ANALYZE runs, run_events, run_steps, proof_cards, events');
  await db.raw('CHECKPOINT');
}

/**
 * Removes the old runs table by table. Not through the runs' ON DELETE
 * CASCADE: proof_cards.run_id has no index, so cascading 100,000 deletes
 * scans proof_cards once per run (tens of minutes). Foreign-key triggers are
 * off for this transaction only (session_replication_role, a superuser
 * setting: the bench's private cluster runs as one); every row of these runs
 * goes, children first, so nothing is left dangling.
 */
async function removeOldRuns(env: BenchEnv): Promise<void> {
  const like = (p: string) => `'${p}\\_${PREFIX}\\_%'`;
  await env.deps.db.transaction(async (trx) => {
    await trx.raw('SET LOCAL session_replication_role = replica');
    for (const table of ['run_events', 'run_steps', 'proof_cards', 'waitpoints'])
      await trx.raw(`DELETE FROM ${table} WHERE run_id LIKE ${like('run')}`);
    await trx.raw(`DELETE FROM events WHERE id LIKE ${like('evt')}`);
    await trx.raw(`DELETE FROM runs WHERE id LIKE ${like('run')}`);
  });
  await env.deps.db.raw('VACUUM ANALYZE');
}

/**
 * Sync 3-step run latency (BENCH_N, one at a time) with the runs the bench
 * has made so far, then again with BENCH_STORED_RUNS (100,000) old finished
 * runs of the same account in the tables (vacuumed and checkpointed, as a
 * long-lived database has them): indexes should keep it flat. With
 * pg_stat_statements loaded it names the statements that slowed down most.
 * The old runs are removed afterwards (BENCH_STORED_KEEP=1 keeps them).
 */
export async function benchStored(env: BenchEnv) {
  const count = Number(process.env.BENCH_STORED_RUNS ?? 100_000);
  const events = Number(process.env.BENCH_STORED_EVENTS_PER_RUN ?? 12);
  const n = Number(process.env.BENCH_N ?? 100);
  const token = await benchToken(env);
  // Each measurement also reads every statement's mean time (pg_stat_statements), so a slower p50 names the query.
  const measure = async () => {
    // Enough warm-up that the first measurement is not also the processes' JIT warm-up.
    for (let w = 0; w < 20; w++) await runOnce(env, token);
    const times = env.statements ? await statementTimes(env.databaseUrl) : null;
    const samples: number[] = [];
    for (let k = 0; k < n; k++) {
      const t = performance.now();
      await runOnce(env, token);
      samples.push(performance.now() - t);
    }
    return {
      latency: stats(samples),
      statements: times ? meanTimes(times, await statementTimes(env.databaseUrl)) : null,
    };
  };
  const runsOf = async () =>
    Number((await env.deps.db('runs').where({ account_id: BENCH_ACCOUNT }).count({ n: '*' }).first())?.n ?? 0);
  await env.deps.db.raw('CHECKPOINT');
  const runsBefore = await runsOf();
  const before = await measure();
  const started = performance.now();
  await insertOldRuns(env, count, events);
  const loadSeconds = Math.round((performance.now() - started) / 100) / 10;
  const runsAfter = await runsOf();
  const after = await measure();
  if (process.env.BENCH_STORED_KEEP !== '1') await removeOldRuns(env);
  const p50Ratio = Math.round((after.latency.p50 / before.latency.p50) * 100) / 100;
  return {
    inserted: count,
    eventsPerRun: events,
    loadSeconds,
    before: { runsStored: runsBefore, latency: before.latency },
    after: { runsStored: runsAfter, latency: after.latency },
    p50Ratio,
    flat: p50Ratio <= 1.2,
    slowerStatements:
      before.statements && after.statements
        ? slower(before.statements, after.statements)
        : 'pg_stat_statements not loaded',
  };
}

/** Statements whose mean time grew most between the two measurements (ms per call, before → after). */
function slower(
  before: Map<string, { meanMs: number }>,
  after: Map<string, { query: string; calls: number; meanMs: number }>,
) {
  return [...after]
    .filter(([id]) => before.has(id))
    .map(([id, a]) => ({
      query: a.query.replace(/\s+/g, ' ').slice(0, 160),
      beforeMs: Math.round(before.get(id)!.meanMs * 1000) / 1000,
      afterMs: Math.round(a.meanMs * 1000) / 1000,
      growth: a.meanMs - before.get(id)!.meanMs,
    }))
    .sort((x, y) => y.growth - x.growth)
    .slice(0, 5)
    .map(({ growth: _g, ...rest }) => rest);
}
