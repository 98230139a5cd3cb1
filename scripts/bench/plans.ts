import { randomBytes } from 'node:crypto';
import { createDb, type Knex } from '../../shared/db/knex.js';
import { migrateLatest } from '../../shared/db/migrate.js';
import { explainQueries, type PlanContext } from './plan-queries.js';
import type { BenchEnv } from './env.js';

type Env = BenchEnv;

const HOT = 'acct_plan_hot';
const ACCOUNTS = 1000;

/**
 * Fills the list tables of a fresh database with `rows` rows each, as a busy
 * service would have them: a thousand accounts, one of which owns half of
 * every table (the worst case for "this account's newest 50"); runs mostly
 * finished over the last 90 days, a few running or waiting; events mostly
 * acknowledged; deliveries mostly completed, one in fifty a retry of an
 * earlier attempt, a few queued, a fifth of them pull. Ids sort by
 * creation, as UUIDv7 ids do. Returns what the queries look up for the hot
 * account and for a small one (about 0.05 % of each table).
 */
async function load(db: Knex, rows: number): Promise<{ hot: PlanContext; small: PlanContext }> {
  const account = `CASE WHEN g % 2 = 0 THEN '${HOT}' ELSE 'acct_plan_' || (g % ${ACCOUNTS}) END`;
  const id = (prefix: string) => `'${prefix}_' || lpad(g::text, 12, '0')`;
  const created = `now() - make_interval(secs => (${rows} - g) * 7.776e6 / ${rows})`; // spread over 90 days
  await db.raw(`INSERT INTO accounts (id, email, name, password_hash, plan, status)
    SELECT 'acct_plan_' || g, 'plan' || g || '@bench.local', 'bench', '!', 'team', 'active' FROM generate_series(0,
        ${ACCOUNTS - 1}) g`);
  await db.raw(
    `INSERT INTO accounts (id, email, name, password_hash, plan, status) VALUES ('${HOT}', ` +
      `'hot@bench.local', 'bench', '!', 'team', 'active')`,
  );
  await db.raw(`INSERT INTO subscriptions (id, account_id, endpoint, events, secret, mode)
    SELECT 'sub_plan_' || g, CASE WHEN g = 0 THEN '${HOT}' ELSE 'acct_plan_' || g END, 'https://example.com/hook',
        '{*}', 'whsec_x', CASE WHEN g % 5 = 0 THEN 'pull' ELSE 'push' END
    FROM generate_series(0, ${ACCOUNTS - 1}) g`);
  const step = (name: string) => process.stderr.write(`bench: plans: ${name}…\n`);
  step(`runs (${rows})`);
  await db.raw(`INSERT INTO runs (id, account_id, conversation_id, status, request, input, route, routing,
      created_at, updated_at, finished_at)
    SELECT ${id('run')}, ${account}, 'conv_' || (g % 50000), s.status, 'find a bike', '{}', '{hunt}', '{}',
        ${created}, ${created},
      CASE WHEN s.status IN ('ready', 'failed') THEN ${created} END
    FROM generate_series(1, ${rows}) g, LATERAL (SELECT CASE WHEN g / 2 % 100 = 1 THEN 'running'
        WHEN g / 2 % 25 = 2 THEN 'NEEDS_INPUT' WHEN g / 2 % 20 = 3 THEN 'failed' ELSE 'ready' END AS status) s`);
  step('run events and steps');
  await db.raw(`INSERT INTO run_events (run_id, seq, account_id, type, data, created_at)
    SELECT ${id('run')}, k, ${account}, CASE WHEN k = 2 THEN 'final' ELSE 'handoff' END, '{}', ${created}
        FROM generate_series(1, ${rows}) g, generate_series(1, 2) k`);
  await db.raw(`INSERT INTO run_steps (id, run_id, account_id, segment, idx, domain, status, started_at,
      heartbeat_at, finished_at)
    SELECT ${id('run')} || '.0.0.hunt', ${id('run')}, ${account}, 0, 0, 'hunt', CASE
        WHEN g / 2 % 100 = 1 THEN 'running' ELSE 'completed' END, ${created}, ${created}, ${created}
    FROM generate_series(1, ${rows}) g`);
  step(`tasks (${rows})`);
  await db.raw(`INSERT INTO tasks (id, account_id, domain, status, in_data, created_at)
    SELECT ${id('task')}, ${account}, 'hunt', CASE WHEN g / 2 % 100 = 1 THEN 'running' ELSE 'completed' END, '{}',
        ${created} FROM generate_series(1, ${rows}) g`);
  step(`events (${rows})`);
  await db.raw(`INSERT INTO events (id, account_id, type, payload, created_at, acked_at, fanned_out_at)
    SELECT ${id('evt')}, ${account}, CASE WHEN g / 2 % 10 = 0 THEN 'run.failed'
        WHEN g / 2 % 10 = 1 THEN 'task.completed' ELSE 'run.completed' END, '{}', ${created},
      CASE WHEN g / 2 % 20 <> 0 THEN ${created} END, ${created}
    FROM generate_series(1, ${rows}) g`);
  step(`deliveries (${rows})`);
  await db.raw(`INSERT INTO deliveries (id, account_id, event_id, subscription_id, root_id, parent_id, attempt,
      status, mode, next_attempt_at, created_at, updated_at, finished_at)
    SELECT ${id('dlv')}, ${account}, ${id('evt')}, CASE WHEN g % 2 = 0 THEN 'sub_plan_0'
        ELSE 'sub_plan_' || (g % ${ACCOUNTS}) END,
      CASE WHEN g / 2 % 50 = 0 AND g > 2 THEN 'dlv_' || lpad((g - 2)::text, 12, '0') ELSE ${id('dlv')} END,
      CASE WHEN g / 2 % 50 = 0 AND g > 2 THEN 'dlv_' || lpad((g - 2)::text, 12, '0') END,
      CASE WHEN g / 2 % 50 = 0 AND g > 2 THEN 2 ELSE 1 END, s.status, CASE WHEN g / 2 % 5 = 0 THEN 'pull'
          ELSE 'push' END,
      CASE WHEN s.status = 'queued' THEN now() - interval '1 minute' + make_interval(secs => g % 600)
          ELSE ${created} END, ${created}, ${created},
      CASE WHEN s.status <> 'queued' THEN ${created} END
    FROM generate_series(1, ${rows}) g, LATERAL (SELECT CASE WHEN g / 2 % 50 = 49 THEN 'failed'
        WHEN g / 2 % 50 = 7 THEN 'queued' ELSE 'completed' END AS status) s`);
  step(`catalog (${rows / 10})`);
  await db.raw(`INSERT INTO catalog_listings (id, account_id, title, price_minor, created_at)
    SELECT ${id('lst')}, ${account}, 'road bike ' || g, 10000 + g, ${created} FROM generate_series(1, ${rows / 10}) g`);
  step('mails and idempotency keys');
  await db.raw(`INSERT INTO outbound_mails (id, account_id, to_address, subject, text_body, status, created_at)
    SELECT ${id('mail')}, ${account}, 'x@example.com', 'Activate', 'act_x', 'sent', ${created}
        FROM generate_series(1, ${rows / 10}) g`);
  await db.raw(`INSERT INTO idempotency_keys (account_id, key, request_hash, created_at)
    SELECT ${account}, 'key-' || g, 'h', ${created} FROM generate_series(1, ${rows / 10}) g`);
  step('analyze');
  await db.raw('ANALYZE');
  const pad = (n: number) => String(n).padStart(12, '0');
  const context = (accountId: string, g: number, conversation: number): PlanContext => ({
    accountId,
    conversationId: `conv_${conversation}`,
    subscriptionId: accountId === HOT ? 'sub_plan_0' : `sub_plan_${g % ACCOUNTS}`,
    eventId: `evt_${pad(g)}`,
    rootId: `dlv_${pad(g)}`,
    deliveryId: `dlv_${pad(g)}`,
    runCursor: `run_${pad(g)}`,
  });
  // Row g belongs to the hot account when even, else to acct_plan_(g % 1000): pick a row in the middle of each.
  const mid = Math.floor(rows / 2000) * 1000;
  return {
    hot: context(HOT, mid + 2, (mid + 2) % 50000),
    small: context(`acct_plan_${(mid + 7) % ACCOUNTS}`, mid + 7, (mid + 7) % 50000),
  };
}

/**
 * `BENCH_SECTIONS=plans npm run bench`: a throwaway database on the bench's
 * Postgres, migrated, `BENCH_PLAN_ROWS` (1,000,000) rows in each main list
 * table, then EXPLAIN ANALYZE of every list, claim and retention query (run
 * in a transaction that is rolled back), for an account that owns half of
 * every table and for a small one. Each plan should read an index (no Seq
 * Scan) and, for a page or a claim, take its order from it (no Sort).
 */
export async function benchPlans(env: Env): Promise<unknown> {
  const rows = Number(process.env.BENCH_PLAN_ROWS ?? 1_000_000);
  const name = `awp_plans_${randomBytes(4).toString('hex')}`;
  await env.deps.db.raw(`CREATE DATABASE ${name}`);
  const url = new URL(env.databaseUrl);
  url.pathname = `/${name}`;
  const db = createDb(url.toString(), { min: 0, max: 2 });
  try {
    await migrateLatest(db);
    const started = performance.now();
    const contexts = await load(db, rows);
    const loadSeconds = Math.round((performance.now() - started) / 100) / 10;
    const result: Record<string, unknown> = { rowsPerTable: rows, loadSeconds };
    for (const [who, context] of Object.entries(contexts)) {
      const reports = await explainQueries(db, context, { forceIndex: false, requireIndexes: false, analyze: true });
      for (const r of reports)
        process.stderr.write(`\n-- ${who} account: ${r.name}${r.ok ? '' : '   <-- NOT OK'}\n${r.plan}\n`);
      result[`${who}Account`] = {
        accountId: context.accountId,
        ok: reports.filter((r) => r.ok).length,
        notOk: reports.filter((r) => !r.ok).map((r) => r.name),
        queries: reports.map((r) => ({
          name: r.name,
          ok: r.ok,
          scans: r.scans,
          seqScans: r.seqScans,
          sorts: r.sorts,
          notTheIndexMadeForIt: r.missing,
          plan: r.plan.split('\n'),
        })),
      };
    }
    return result;
  } finally {
    await db.destroy();
    await env.deps.db.raw(`DROP DATABASE IF EXISTS ${name}`);
  }
}
