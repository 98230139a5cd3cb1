import assert from 'node:assert/strict';
import path from 'node:path';
import { sweepRunEventPartitions } from '../../jobs/clock/retention.js';
import { createDb, type Knex } from '../../shared/db/knex.js';
import { runEventPartitions, weekStart } from '../../shared/db/run-event-partitions.js';
import { eventsAfter } from '../../shared/db/runs.js';
import { createLogger } from '../../shared/log.js';
import { newId } from '../../shared/ids.js';
import { harness } from '../support/harness.js';
import { freshDatabase } from '../support/services.js';
import { ROOT } from '../support/spawn.js';

const DAY_MS = 86_400_000;
const MIGRATIONS = { directory: path.join(ROOT, 'migrations'), loadExtensions: ['.ts'] };

/**
 * run_events partitioned by week, on a database of its own: the migration is run over rows written before it, and
 * the sweeps are run at a `now` weeks ahead, which would drop the suite's own events.
 */
describe('run_events by the week', function () {
  this.timeout(60_000);
  let db: Knex;
  let drop: () => Promise<void>;
  let accountId: string;
  let cutover: Date;
  const deps = (overrides: Record<string, string> = {}) => ({
    db,
    log: createLogger('silent'),
    config: harness.configWith({ RUN_EVENTS_RETENTION_DAYS: '30', RETENTION_BATCH_SIZE: '10', ...overrides }),
  });
  const types = async (runId: string) => (await eventsAfter(db, runId, 0)).map((e) => e.type);

  /** A run with a trace, a handoff and a final event written at `at`; finished then unless `finished` is false. */
  async function run(status: string, at: Date, finished = true): Promise<string> {
    const id = newId('run');
    await db('runs').insert({
      ...{ id, account_id: accountId, status, request: 'x', input: '{}', route: ['hunt'], routing: '{}' },
      ...{ event_seq: 3, created_at: at, finished_at: finished ? at : null },
    });
    await db('run_events').insert(
      ['trace', 'handoff', 'final'].map((type, i) => ({
        ...{ run_id: id, seq: i + 1, account_id: accountId, type, data: '{}', created_at: at },
      })),
    );
    return id;
  }

  let written: { old: string; waiting: string };
  before(async () => {
    const database = await freshDatabase(harness.services.databaseUrl);
    drop = database.drop;
    db = createDb(database.url, { min: 0, max: 4 });
    while ((await db.migrate.list(MIGRATIONS))[1].length > 1) await db.migrate.up(MIGRATIONS);
    accountId = newId('acct');
    await db('accounts').insert({ id: accountId, email: 'p@test.local', name: 't', password_hash: 'x', plan: 'team' });
    written = { old: await run('ready', daysAgo(60)), waiting: await run('NEEDS_INPUT', daysAgo(60), false) };
    await db.migrate.up(MIGRATIONS); // the partitioning, over a table holding rows
  });
  after(async () => {
    await db?.destroy();
    await drop?.();
  });

  it(
    'the migration turns the table into the first week ' + 'partition, rows and all, with weeks ready after it',
    async () => {
      const tree = await db.raw(
        `SELECT relid::text AS rel, parentrelid::text AS parent FROM pg_partition_tree('run_events') ORDER BY 1`,
      );
      const { attached } = await runEventPartitions(db);
      const first = attached[0]!;
      assert.match(first.name, /^run_events_until_\d{8}$/);
      cutover = first.to;
      assert.equal(weekStart(cutover).getTime(), cutover.getTime(), 'the cutover is a Monday');
      assert.ok(cutover.getTime() - Date.now() > 6 * DAY_MS, 'a week or more ahead');
      assert.deepEqual(
        attached.slice(1).map((p) => p.from!.getTime()),
        attached.slice(0, -1).map((p) => p.to.getTime()),
        'no gap',
      );
      const parents = new Map(tree.rows.map((r: { rel: string; parent: string }) => [r.rel, r.parent]));
      assert.equal(parents.get('run_events_kept'), 'run_events');
      assert.equal(parents.get(first.name), 'run_events_by_week');
      assert.deepEqual(await types(written.old), ['trace', 'handoff', 'final']);
      const where = await db.raw(`SELECT DISTINCT tableoid::regclass::text AS t FROM run_events`);
      assert.deepEqual(
        where.rows.map((r: { t: string }) => r.t),
        [first.name],
      );
      // Still one (run_id, seq) per event within a partition: the key is the old one plus the partition keys.
      await assert.rejects(
        db.raw(
          `INSERT INTO run_events (run_id, seq, account_id, type, data, created_at)
        SELECT run_id, seq, account_id, type, data, created_at FROM run_events WHERE run_id = ? AND seq = 1`,
          [written.old],
        ),
        /duplicate key/,
      );
    },
  );

  it('the sweep creates the coming weeks without a gap, and only once', async () => {
    const now = new Date(cutover.getTime() + 10 * 7 * DAY_MS);
    const first = await sweepRunEventPartitions(deps({ RUN_EVENTS_RETENTION_DAYS: '1000' }), now);
    assert.ok(first.created.length >= 10, first.created.join());
    const { attached } = await runEventPartitions(db);
    assert.ok(attached.at(-1)!.to.getTime() >= weekStart(now).getTime() + 5 * 7 * DAY_MS, 'four weeks ahead of now');
    for (let i = 1; i < attached.length; i++) assert.equal(attached[i]!.from!.getTime(), attached[i - 1]!.to.getTime());
    const again = await sweepRunEventPartitions(deps({ RUN_EVENTS_RETENTION_DAYS: '1000' }), now);
    assert.deepEqual(again, { created: [], kept: 0, dropped: [] });
  });

  it(
    'a week past retention is dropped once its final events and the events of unfinished runs are kept; the ' +
      'other events go with it',
    async () => {
      const finishedLately = await run('ready', daysAgo(50));
      const running = await run('running', daysAgo(50), false);
      const atBefore = (await eventsAfter(db, running, 0)).map((e) => e.at);
      const now = new Date(cutover.getTime() + 31 * DAY_MS);
      const swept = await sweepRunEventPartitions(deps(), now);
      assert.deepEqual(swept.dropped, [`run_events_until_${ymd(cutover)}`]);
      assert.equal(swept.kept, 2 + 3 + 3, 'two finals of finished runs, three events of each unfinished one');
      for (const id of [written.old, finishedLately]) assert.deepEqual(await types(id), ['final']);
      for (const id of [written.waiting, running]) assert.deepEqual(await types(id), ['trace', 'handoff', 'final']);
      assert.deepEqual(
        (await eventsAfter(db, running, 0)).map((e) => e.at),
        atBefore,
        'a kept event keeps its time',
      );
      assert.deepEqual((await sweepRunEventPartitions(deps(), now)).dropped, []);
    },
  );

  it('a week with more finals than one sweep moves is dropped by the sweep after', async () => {
    const week = (await runEventPartitions(db)).attached[0]!; // the cutover week, the oldest now
    const runId = await run('ready', week.from!);
    await db.raw(
      `INSERT INTO run_events (run_id, seq, account_id, type, data, created_at)
       SELECT ?, 100 + g, ?, 'final', '{}', ?::timestamptz FROM generate_series(1, 520) g`,
      [runId, accountId, week.from!.toISOString()],
    );
    const now = new Date(week.to.getTime() + 31 * DAY_MS);
    const first = await sweepRunEventPartitions(deps(), now);
    assert.equal(first.kept, 500, 'fifty batches of ten');
    assert.deepEqual(first.dropped, [], 'the week stays while finals are left in it');
    const second = await sweepRunEventPartitions(deps(), now);
    assert.deepEqual(second, { created: [], kept: 21, dropped: [week.name] });
    assert.equal((await eventsAfter(db, runId, 0, 1000)).length, 521, "every final, the run's own too");
  });

  it('a week an interrupted sweep left detached is dropped by the next sweep', async () => {
    const week = (await runEventPartitions(db)).attached[0]!;
    await db.raw(`ALTER TABLE run_events_by_week DETACH PARTITION ${week.name} CONCURRENTLY`);
    const swept = await sweepRunEventPartitions(deps(), new Date(week.to.getTime() + DAY_MS));
    assert.deepEqual(swept.dropped, [week.name]);
    assert.equal((await db.raw('SELECT to_regclass(?) AS t', [week.name])).rows[0].t, null);
  });
});

function daysAgo(days: number): Date {
  return new Date(Date.now() - days * DAY_MS);
}

function ymd(d: Date): string {
  return d.toISOString().slice(0, 10).replace(/-/g, '');
}
