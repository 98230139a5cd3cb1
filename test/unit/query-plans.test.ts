import assert from 'node:assert/strict';
import { createDb, type Knex } from '../../shared/db/knex.js';
import { newId } from '../../shared/ids.js';
import { explainQueries, PLAN_QUERIES, type PlanContext } from '../../scripts/bench/plan-queries.js';
import { harness } from '../support/harness.js';

/**
 * Five accounts with a hundred rows in each list table, one record of each
 * kind the queries look up, then ANALYZE: the planner then knows an account
 * holds many rows and an event or a chain few, as in production, and picks
 * between indexes for the same reasons it would there.
 */
async function fill(db: Knex, accountId: string, subscriptionId: string, rows: number): Promise<void> {
  const n = (prefix: string) => `'${prefix}_' || lpad(g::text, 8, '0') || '${accountId.slice(5, 17)}'`;
  await db.raw(`INSERT INTO runs (id, account_id, conversation_id, status, request, input, route, routing)
    SELECT ${n('run')}, ?, 'conv_' || (g % 10), CASE WHEN g % 10 = 0 THEN 'running' ELSE 'ready' END, 'x', '{}', '{hunt}', '{}' FROM generate_series(1, ?) g`, [accountId, rows]);
  await db.raw(`INSERT INTO tasks (id, account_id, domain, status, in_data) SELECT ${n('task')}, ?, 'hunt', 'open', '{}' FROM generate_series(1, ?) g`, [accountId, rows]);
  await db.raw(`INSERT INTO events (id, account_id, type, payload) SELECT ${n('evt')}, ?, 'run.completed', '{}' FROM generate_series(1, ?) g`, [accountId, rows]);
  await db.raw(`INSERT INTO deliveries (id, root_id, account_id, event_id, subscription_id, mode, status)
    SELECT ${n('dlv')}, ${n('dlv')}, ?, ${n('evt')}, ?, 'pull', 'completed' FROM generate_series(1, ?) g`, [accountId, subscriptionId, rows]);
  await db.raw(`INSERT INTO catalog_listings (id, account_id, title, price_minor) SELECT ${n('lst')}, ?, 't', 100 FROM generate_series(1, ?) g`, [accountId, rows]);
}

async function seed(db: Knex): Promise<PlanContext> {
  const subscriptionFor = async (accountId: string) => {
    const id = newId('sub');
    await db('subscriptions').insert({ id, account_id: accountId, endpoint: 'http://127.0.0.1:9/hook', events: ['*'], secret: 'whsec_x', mode: 'pull' });
    return id;
  };
  // Other accounts' rows, so one account is a slice of each table as in production.
  for (let i = 0; i < 4; i++) {
    const other = (await harness.account()).accountId;
    await fill(db, other, await subscriptionFor(other), 100);
  }
  const { accountId } = await harness.account();
  const subscriptionId = await subscriptionFor(accountId);
  await fill(db, accountId, subscriptionId, 100);
  const eventId = newId('evt');
  await db('events').insert({ id: eventId, account_id: accountId, type: 'run.failed', payload: '{}' });
  const deliveryId = newId('dlv');
  await db('deliveries').insert({ id: deliveryId, root_id: deliveryId, account_id: accountId, event_id: eventId, subscription_id: subscriptionId, mode: 'pull' });
  await db.raw('ANALYZE runs, tasks, events, deliveries, subscriptions, catalog_listings');
  const runCursor = (await db('runs').where({ account_id: accountId }).orderBy('id', 'desc').offset(50).first('id')).id;
  return { accountId, conversationId: 'conv_3', subscriptionId, eventId, rootId: deliveryId, deliveryId, runCursor };
}

describe('query plans: every list, claim and retention query can use an index', function () {
  this.timeout(30_000);
  let db: Knex;
  before(() => {
    // A knex of its own: the plans capture the statements this instance sends, and nothing else runs on it.
    db = createDb(harness.services.databaseUrl, { min: 0, max: 2 });
  });
  after(() => db.destroy());

  it('with sequential scans and sorts priced out, no plan keeps one (an ordered query gets its order from the index)', async () => {
    const reports = await explainQueries(db, await seed(db), { forceIndex: true, requireIndexes: true });
    assert.ok(reports.length >= PLAN_QUERIES.length, 'every query sent at least one statement');
    const bad = reports.filter((r) => !r.ok).map((r) => `${r.name}: seq scans [${r.seqScans.join(', ')}], sorts ${r.sorts}, indexes not used [${r.missing.join(', ')}]\n${r.plan}`);
    assert.deepEqual(bad, []);
  });
});
