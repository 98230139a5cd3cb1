import { BENCH_ACCOUNT, benchToken, runOnce } from './awp-client.js';
import { stats, type BenchEnv } from './env.js';

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
    await trx.raw(`INSERT INTO runs (id, account_id, status, request, input, route, routing, results, created_at, updated_at, finished_at)
      SELECT ${id('run')}, ?, CASE WHEN g % 20 = 0 THEN 'failed' ELSE 'ready' END, 'find an espresso machine under $120', '{}', '{hunt,resolve,resolve}', '{"source":"explicit"}',
        '{"status":"ready","results":[]}', ${created}, ${created}, ${created}
      FROM generate_series(1, ?) g`, [BENCH_ACCOUNT, count]);
    await trx.raw(`INSERT INTO run_events (run_id, seq, account_id, type, data, created_at)
      SELECT ${id('run')}, k, ?, CASE WHEN k = ? THEN 'final' WHEN k = 1 THEN 'trace' ELSE 'handoff' END, '{}', ${created}
      FROM generate_series(1, ?) g, generate_series(1, ?) k`, [BENCH_ACCOUNT, events, count, events]);
    const domain = `(ARRAY['hunt', 'resolve', 'resolve'])[k + 1]`;
    await trx.raw(`INSERT INTO run_steps (id, run_id, account_id, segment, idx, domain, status, output, started_at, heartbeat_at, finished_at)
      SELECT ${id('run')} || '.0.' || k || '.' || ${domain}, ${id('run')}, ?, 0, k, ${domain}, 'completed', '{}', ${created}, ${created}, ${created}
      FROM generate_series(1, ?) g, generate_series(0, 2) k`, [BENCH_ACCOUNT, count]);
    await trx.raw(`INSERT INTO proof_cards (id, account_id, run_id, decision_id, card, decision, created_at)
      SELECT ${id('card')}, ?, ${id('run')}, ${id('dec')}, '{}', '{}', ${created} FROM generate_series(1, ?) g`, [BENCH_ACCOUNT, count]);
    await trx.raw(`INSERT INTO events (id, account_id, type, subject, payload, created_at, fanned_out_at)
      SELECT ${id('evt')}, ?, 'run.completed', ${id('run')}, '{}', ${created}, ${created} FROM generate_series(1, ?) g`, [BENCH_ACCOUNT, count]);
  });
  await db.raw('ANALYZE');
}

async function removeOldRuns(env: BenchEnv): Promise<void> {
  await env.deps.db.transaction(async (trx) => {
    await trx.raw(`DELETE FROM events WHERE id LIKE 'evt\\_${PREFIX}\\_%'`);
    await trx.raw(`DELETE FROM runs WHERE id LIKE 'run\\_${PREFIX}\\_%'`); // steps, events and cards go with their run
  });
  await env.deps.db.raw('VACUUM ANALYZE');
}

/**
 * Sync 3-step run latency (BENCH_N, one at a time) with the runs the bench
 * has made so far, then again with BENCH_STORED_RUNS (100,000) old finished
 * runs of the same account in the tables: indexes should keep it flat.
 * The old runs are removed afterwards (BENCH_STORED_KEEP=1 keeps them).
 */
export async function benchStored(env: BenchEnv) {
  const count = Number(process.env.BENCH_STORED_RUNS ?? 100_000);
  const events = Number(process.env.BENCH_STORED_EVENTS_PER_RUN ?? 12);
  const n = Number(process.env.BENCH_N ?? 100);
  const token = await benchToken(env);
  const measure = async () => {
    for (let w = 0; w < 5; w++) await runOnce(env, token);
    const samples: number[] = [];
    for (let k = 0; k < n; k++) {
      const t = performance.now();
      await runOnce(env, token);
      samples.push(performance.now() - t);
    }
    return stats(samples);
  };
  const runsOf = async () => Number((await env.deps.db('runs').where({ account_id: BENCH_ACCOUNT }).count({ n: '*' }).first())?.n ?? 0);
  const before = { runsStored: await runsOf(), latency: await measure() };
  const started = performance.now();
  await insertOldRuns(env, count, events);
  const loadSeconds = Math.round((performance.now() - started) / 100) / 10;
  const after = { runsStored: await runsOf(), latency: await measure() };
  if (process.env.BENCH_STORED_KEEP !== '1') await removeOldRuns(env);
  const p50Ratio = Math.round((after.latency.p50 / before.latency.p50) * 100) / 100;
  return { inserted: count, eventsPerRun: events, loadSeconds, before, after, p50Ratio, flat: p50Ratio <= 1.2 };
}
