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
async function fill(db: Knex, accountId: string, subscriptionIds: string[], rows: number): Promise<void> {
  const n = (prefix: string) => `'${prefix}_' || lpad(g::text, 8, '0') || '${accountId.slice(5, 17)}'`;
  await db.raw(
    `INSERT INTO runs (id, account_id, conversation_id, status, request, input, route, routing)
    SELECT ${n('run')}, ?, 'conv_' || (g % 10), CASE WHEN g % 10 = 0 THEN 'running' ELSE 'ready' END, 'x', '{}',
        '{hunt}', '{}' FROM generate_series(1, ?) g`,
    [accountId, rows],
  );
  await db.raw(
    `INSERT INTO tasks (id, account_id, domain, status, in_data) SELECT ${n('task')}, ?, 'hunt', 'open', ` +
      `'{}' FROM generate_series(1, ?) g`,
    [accountId, rows],
  );
  await db.raw(
    `INSERT INTO events (id, account_id, type, payload, acked_at)
    SELECT ${n('evt')}, ?, 'run.completed', '{}', CASE WHEN g % 10 <> 0 THEN now() END FROM generate_series(1, ?) g`,
    [accountId, rows],
  );
  await db.raw(
    `INSERT INTO deliveries (id, root_id, account_id, event_id, subscription_id, mode, status)
    SELECT ${n('dlv')}, ${n('dlv')}, ?, ${n('evt')}, (?::text[])[1 + g % ?], 'pull', 'completed'
        FROM generate_series(1, ?) g`,
    [accountId, subscriptionIds, subscriptionIds.length, rows],
  );
  await db.raw(
    `INSERT INTO catalog_listings (id, account_id, title, price_minor) SELECT ${n('lst')}, ?, 't', 100 FROM ` +
      `generate_series(1, ?) g`,
    [accountId, rows],
  );
}

async function seed(db: Knex): Promise<PlanContext> {
  // Ten subscriptions per account, so a subscription is a tenth of its account's deliveries.
  const subscriptionsFor = async (accountId: string) => {
    const ids = Array.from({ length: 10 }, () => newId('sub'));
    await db('subscriptions').insert(
      ids.map((id) => ({
        id,
        account_id: accountId,
        endpoint: 'http://127.0.0.1:9/hook',
        events: ['*'],
        secret: 'whsec_x',
        mode: 'pull',
      })),
    );
    return ids;
  };
  // Other accounts' rows, so one account is a slice of each table as in production.
  for (let i = 0; i < 4; i++) {
    const other = (await harness.account()).accountId;
    await fill(db, other, await subscriptionsFor(other), 100);
  }
  const { accountId } = await harness.account();
  const subscriptionIds = await subscriptionsFor(accountId);
  const subscriptionId = subscriptionIds[0]!;
  await fill(db, accountId, subscriptionIds, 100);
  const eventId = newId('evt');
  await db('events').insert({ id: eventId, account_id: accountId, type: 'run.failed', payload: '{}' });
  const deliveryId = newId('dlv');
  await db('deliveries').insert({
    id: deliveryId,
    root_id: deliveryId,
    account_id: accountId,
    event_id: eventId,
    subscription_id: subscriptionId,
    mode: 'pull',
  });
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

  it(
    'with sequential scans and sorts priced out, no plan keeps one (an ordered query gets its order from the ' +
      'index)',
    async () => {
      const reports = await explainQueries(db, await seed(db), { forceIndex: true, requireIndexes: true });
      assert.ok(reports.length >= PLAN_QUERIES.length, 'every query sent at least one statement');
      const bad = reports
        .filter((r) => !r.ok)
        .map(
          (r) =>
            `${r.name}: seq scans [${r.seqScans.join(', ')}], sorts ${r.sorts}, indexes not used ` +
            `[${r.missing.join(', ')}]\n${r.plan}`,
        );
      assert.deepEqual(bad, []);
    },
  );
});
