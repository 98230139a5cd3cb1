import assert from 'node:assert/strict';
import { fireDueSchedules } from '../../jobs/schedules/firing.js';
import { createDeps, type Deps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';

const huntTarget = { request: { request: 'find an espresso machine under $160', domainRoute: ['hunt'] } };

/**
 * Two clocks, each its own process's view of the world: its own Deps (its
 * own Postgres pool and Redis connection). They claim at the same instants,
 * many times over, and each tick of each schedule must fire once.
 */
describe('schedule firing across clocks', () => {
  let a: { token: string; accountId: string };
  let clocks: Deps[];
  before(async () => {
    a = await harness.account();
    await seedCatalog(a.accountId);
    clocks = [0, 1].map(() => createDeps(harness.config, createLogger('silent')));
    // Other files' schedules are paused: the claims counted here are this file's own.
    await harness.deps.db('schedules').where({ status: 'active' }).update({ status: 'paused' });
  });
  after(async () => {
    for (const d of clocks) await d.close();
  });

  async function schedule(body: Record<string, unknown>, nextFireAt: Date): Promise<string> {
    const res = await harness.call('POST', '/v1/schedules', { token: a.token, body: { target: huntTarget, ...body } });
    assert.equal(res.status, 201, res.text);
    // The clock's position is set by hand: the test decides which instant is "now", so ticks are exact and nothing
    // waits on wall time.
    await harness.deps.db('schedules').where({ id: res.body.schedule.scheduleId }).update({ next_fire_at: nextFireAt });
    return res.body.schedule.scheduleId;
  }
  const firings = (scheduleId: string) =>
    harness.deps.db('schedule_firings').where({ schedule_id: scheduleId }).orderBy('scheduled_for');

  it('two clocks racing fire each tick of each schedule exactly once', async () => {
    const t0 = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await schedule({ cron: '* * * * * *', overlap: 'allow' }, t0));
    let claims = 0;
    for (let tick = 0; tick < 3; tick++) {
      const now = new Date(t0.getTime() + tick * 1000 + 400);
      // Both clocks claim five times each at the same instant.
      const results = await Promise.all(
        clocks.flatMap((d) => Array.from({ length: 5 }, () => fireDueSchedules(d, now))),
      );
      claims += results.reduce((n, r) => n + r.claimed, 0);
    }
    assert.equal(claims, ids.length * 3, 'each schedule claimed once per tick, by one clock');
    for (const id of ids) {
      const rows = await firings(id);
      assert.deepEqual(
        rows.map((f) => new Date(f.scheduled_for).getTime() - t0.getTime()),
        [0, 1000, 2000],
      );
      assert.ok(
        rows.every((f) => f.outcome === 'started' && f.trigger === 'tick'),
        JSON.stringify(rows.map((f) => [f.outcome, f.reason])),
      );
      const runs = await harness.deps.db('runs').whereRaw(`input->'metadata'->'awp'->>'scheduleId' = ?`, [id]);
      assert.deepEqual(runs.map((r) => r.id).sort(), rows.map((f) => f.run_id).sort(), 'one run per firing, no other');
      const next = await harness.deps.db('schedules').where({ id }).first();
      assert.equal(new Date(next.next_fire_at).getTime(), t0.getTime() + 3000);
    }
    assert.equal(
      await harness.deps
        .db('events')
        .where({ type: 'schedule.fired' })
        .whereIn('subject', ids)
        .count('* as n')
        .first()
        .then((r: any) => Number(r.n)),
      ids.length * 3,
    );
  });

  it('a paused schedule does not fire; resumed, it fires from its next tick', async () => {
    const t0 = new Date(Date.now() - 500);
    const id = await schedule({ cron: '* * * * * *' }, t0);
    await harness.call('POST', `/v1/schedules/${id}/pause`, { token: a.token });
    await fireDueSchedules(clocks[0]!, new Date(t0.getTime() + 200));
    assert.equal((await firings(id)).length, 0);
    const resumed = await harness.call('POST', `/v1/schedules/${id}/resume`, { token: a.token });
    const next = new Date(resumed.body.schedule.nextFireAt);
    await fireDueSchedules(clocks[1]!, new Date(next.getTime() + 100));
    assert.deepEqual(
      (await firings(id)).map((f) => new Date(f.scheduled_for).getTime()),
      [next.getTime()],
    );
  });

  it(
    'after a downtime, catchUp once runs the latest missed ' + 'tick once; catchUp none records the ticks as missed',
    async () => {
      const t0 = new Date('2026-06-01T00:00:00Z');
      const once = await schedule({ cron: '*/10 * * * *', catchUp: 'once' }, t0);
      const none = await schedule({ cron: '*/10 * * * *', catchUp: 'none' }, t0);
      // The clocks come back two hours and five minutes later.
      const back = new Date(t0.getTime() + 125 * 60_000);
      await Promise.all(clocks.map((d) => fireDueSchedules(d, back)));
      const [caught] = await firings(once);
      assert.equal((await firings(once)).length, 1);
      assert.deepEqual(
        [caught.trigger, caught.outcome, caught.missed, new Date(caught.scheduled_for).toISOString()],
        ['catchUp', 'started', 12, '2026-06-01T02:00:00.000Z'],
      );
      const skipped = await firings(none);
      assert.equal(skipped.length, 1);
      assert.deepEqual([skipped[0].outcome, skipped[0].missed, skipped[0].run_id], ['missed', 13, null]);
      for (const id of [once, none]) {
        assert.equal(
          new Date((await harness.deps.db('schedules').where({ id }).first()).next_fire_at).toISOString(),
          '2026-06-01T02:10:00.000Z',
        );
      }
      // Claiming again at the same instant finds nothing due.
      assert.deepEqual(await fireDueSchedules(clocks[0]!, back), { claimed: 0, started: 0 });
    },
  );
});
