import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { request } from 'undici';
import { dispatchDue } from '../../jobs/events/deliver.js';
import { newWebhookSecret, webhookHeaders } from '../../jobs/events/logic.js';
import { claimDeliveries } from '../../shared/db/deliveries.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { sustained, type BenchEnv } from './env.js';

type Env = BenchEnv;
const rate = (n: number, s: number) => Math.round((n / s) * 10) / 10;

async function receiver() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    stop: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/**
 * Deliveries/s through the dispatcher (claim, sign, POST, settle) vs a bare loop doing sign + POST + record in plain
 * SQL.
 */
async function deliveries(env: Env, n: number) {
  const rx = await receiver();
  const db = env.deps.db;
  const accountId = 'acct_bench_events';
  await db('accounts')
    .insert({
      id: accountId,
      email: 'benchev@awp.local',
      name: 'b',
      password_hash: '!',
      plan: 'team',
      status: 'active',
    })
    .onConflict('id')
    .ignore();
  await db('subscriptions')
    .insert({
      id: 'sub_bench',
      account_id: accountId,
      endpoint: rx.url,
      events: ['bench.tick'],
      secret: newWebhookSecret(),
    })
    .onConflict('id')
    .ignore();
  for (let i = 0; i < n; i += 200)
    await db.transaction(async (trx) => {
      for (let k = i; k < Math.min(n, i + 200); k++)
        await recordEvent(trx, { accountId, type: 'bench.tick', payload: { k } });
    });
  let t = performance.now();
  await dispatchDue(null, env.deps);
  const awpSeconds = (performance.now() - t) / 1000;

  const pool = new pg.Pool({ connectionString: env.databaseUrl, max: 8 });
  await pool.query(
    'CREATE TABLE IF NOT EXISTS bare_outbox (id serial primary key, body text, status text, response int)',
  );
  await pool.query(
    `INSERT INTO bare_outbox (body, status) SELECT '{"type":"bench.tick","data":{"k":' || g || '}}', ` +
      `'queued' FROM generate_series(1, $1) g`,
    [n],
  );
  const secret = newWebhookSecret();
  t = performance.now();
  for (;;) {
    const { rows } = await pool.query(
      `UPDATE bare_outbox SET status = 'claimed' WHERE id IN (SELECT id FROM bare_outbox WHERE status = ` +
        `'queued' ORDER BY id LIMIT 20 FOR UPDATE SKIP LOCKED) RETURNING id, body`,
    );
    if (rows.length === 0) break;
    await Promise.all(
      rows.map(async (row: { id: number; body: string }) => {
        const res = await request(rx.url, {
          method: 'POST',
          headers: webhookHeaders([secret], `m${row.id}`, Math.floor(Date.now() / 1000), row.body),
          body: row.body,
        });
        await res.body.text();
        await pool.query(`UPDATE bare_outbox SET status = 'done', response = $2 WHERE id = $1`, [
          row.id,
          res.statusCode,
        ]);
      }),
    );
  }
  const bareSeconds = (performance.now() - t) / 1000;
  await pool.end();
  rx.stop();
  const completed = Number(
    (await db('deliveries').where({ account_id: accountId, status: 'completed' }).count({ n: '*' }).first())?.n,
  );
  if (completed !== n) throw new Error(`only ${completed} of ${n} deliveries completed`);
  return {
    n,
    awpPerSec: rate(n, awpSeconds),
    barePerSec: rate(n, bareSeconds),
    ratio: Math.round((bareSeconds / awpSeconds) * 100) / 100,
  };
}

/** Ledger claims/s (one attempt per claim, 8 claimers) vs a bare SKIP LOCKED claim loop on the same database. */
async function claims(env: Env, n: number) {
  const db = env.deps.db;
  const accountId = 'acct_bench_claims';
  await db('accounts')
    .insert({
      id: accountId,
      email: 'benchcl@awp.local',
      name: 'b',
      password_hash: '!',
      plan: 'team',
      status: 'active',
    })
    .onConflict('id')
    .ignore();
  await db('subscriptions')
    .insert({
      id: 'sub_bench_claims',
      account_id: accountId,
      endpoint: 'https://bench.invalid/x',
      events: ['bench.claim'],
      mode: 'pull',
      secret: newWebhookSecret(),
    })
    .onConflict('id')
    .ignore();
  await db('events')
    .insert({
      id: 'evt_bench_claims',
      account_id: accountId,
      type: 'bench.claim',
      payload: '{}',
      fanned_out_at: db.fn.now(),
    })
    .onConflict('id')
    .ignore();
  await db.raw(
    `INSERT INTO deliveries (id, account_id, event_id, subscription_id, root_id, parent_id, attempt, mode)
    SELECT 'dlv_bc_' || g, ?, 'evt_bench_claims', 'sub_bench_claims', 'dlv_bc_' || g, CASE WHEN g = 1 THEN NULL
        ELSE 'dlv_bc_1' END, 1, 'pull' FROM generate_series(1, ?) g`,
    [accountId, n],
  );
  let claimed = 0;
  const awpSeconds = await sustained(n, 8, async () => {
    const got = await claimDeliveries(db, { accountId, mode: 'pull', limit: 1, leaseSeconds: 60, claimedBy: 'bench' });
    claimed += got.length;
  });
  const pool = new pg.Pool({ connectionString: env.databaseUrl, max: 8 });
  await pool.query('CREATE TABLE IF NOT EXISTS bare_claims (id serial primary key, status text not null)');
  await pool.query(`INSERT INTO bare_claims (status) SELECT 'queued' FROM generate_series(1, $1)`, [n]);
  const bareSeconds = await sustained(n, 8, () =>
    pool.query(
      `UPDATE bare_claims SET status = 'claimed' WHERE id = (SELECT id FROM bare_claims WHERE status = ` +
        `'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id`,
    ),
  );
  await pool.end();
  if (claimed !== n) throw new Error(`claimed ${claimed} of ${n}`);
  return {
    n,
    awpPerSec: rate(n, awpSeconds),
    barePerSec: rate(n, bareSeconds),
    ratio: Math.round((bareSeconds / awpSeconds) * 100) / 100,
  };
}

export async function benchEvents(env: Env) {
  return {
    deliveriesEndToEnd: await deliveries(env, Number(process.env.BENCH_DELIVERIES ?? 1000)),
    ledgerClaims: await claims(env, Number(process.env.BENCH_CLAIMS ?? 3000)),
  };
}
