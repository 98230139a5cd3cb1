import assert from 'node:assert/strict';
import { runIdOf } from '../../jobs/automation/start-run.js';
import { recordFiring, startFiring, sweepPendingFirings } from '../../jobs/schedules/firing.js';
import { getSchedule } from '../../jobs/schedules/repository.js';
import { startMatch, sweepPendingMatches } from '../../jobs/signals/pending.js';
import { recordSignal } from '../../jobs/signals/service.js';
import type { RunTarget } from '../../jobs/automation/index.js';
import { harness } from '../support/harness.js';
import { pollUntilRest, seedCatalog } from '../support/runs.js';

const huntTarget = { request: { request: 'find an espresso machine under $160', domainRoute: ['hunt'] } };
const uniq = (p: string) => `${p}.${Math.random().toString(36).slice(2, 10)}`;

/**
 * A match or firing committed by a process that died before its run started
 * (or before it recorded the start) rests `pending`; the clock's sweeps start
 * it, once, however many times they run and whoever else tries at once. The
 * commit here is the service's own (recordSignal, recordFiring); the start
 * that never came is simply not made. Age is set by hand: nothing waits on
 * the wall clock.
 */
describe('nothing pending forever: signal matches and schedule firings', function () {
  this.timeout(30_000);
  let a: { token: string; accountId: string };
  before(async () => {
    a = await harness.account();
    await seedCatalog(a.accountId);
  });

  const runsOf = (key: 'matchId' | 'firingId', id: string) =>
    harness.deps.db('runs').whereRaw(`input->'metadata'->'awp'->>? = ?`, [key, id]);
  const eventsOf = (type: string, key: 'matchId' | 'firingId', id: string) =>
    harness.deps.db('events').where({ type }).whereRaw(`payload->>? = ?`, [key, id]);
  /** As if the process died a while ago: the record has not been touched for five minutes. */
  const age = (table: string, id: string) =>
    harness.deps
      .db(table)
      .where({ id })
      .update({ updated_at: harness.deps.db.raw("now() - interval '5 minutes'") });

  async function committedMatch() {
    const type = uniq('stock.low');
    const rule = await harness.call('POST', '/v1/signals/rules', {
      token: a.token,
      body: { name: 'r', signalType: type, target: huntTarget },
    });
    assert.equal(rule.status, 201, rule.text);
    const recorded = await recordSignal(harness.deps, a.accountId, {
      type,
      subject: 'sku-9',
      source: 'monitor',
      sourceId: uniq('obs'),
    });
    assert.equal(recorded!.matches.length, 1);
    const match = recorded!.matches[0]!;
    assert.equal(match.outcome, 'pending');
    return { match, signal: recorded!.signal };
  }

  it('a match committed but never started is started by the sweep, once, though it sweeps three times', async () => {
    const { match } = await committedMatch();
    assert.equal((await sweepPendingMatches(harness.deps)).taken, 0, 'a fresh pending match is left to its request');
    await age('signal_matches', match.id);
    await Promise.all([sweepPendingMatches(harness.deps), sweepPendingMatches(harness.deps)]);
    await sweepPendingMatches(harness.deps);
    const row = await harness.deps.db('signal_matches').where({ id: match.id }).first();
    assert.deepEqual([row.outcome, row.run_id], ['started', runIdOf(match.id)]);
    assert.deepEqual(
      (await runsOf('matchId', match.id)).map((r) => r.id),
      [row.run_id],
      'one run',
    );
    assert.equal((await eventsOf('signal.matched', 'matchId', match.id)).length, 1, 'one signal.matched');
    assert.equal((await pollUntilRest(a.token, row.run_id)).status, 'ready', 'and it ran');
  });

  it('a match whose run started but whose outcome was lost is settled with that run, not a second', async () => {
    const { match, signal } = await committedMatch();
    // The request's start got as far as the run (a fresh match answers it); the process died before the settle.
    const first = await startMatch(harness.deps, match, signal);
    await harness.deps
      .db('signal_matches')
      .where({ id: match.id })
      .update({ outcome: 'pending', run_id: null, updated_at: harness.deps.db.raw("now() - interval '5 minutes'") });
    await sweepPendingMatches(harness.deps);
    const row = await harness.deps.db('signal_matches').where({ id: match.id }).first();
    assert.deepEqual([row.outcome, row.run_id], ['started', first.run_id]);
    assert.equal((await runsOf('matchId', match.id)).length, 1, 'still one run');
  });

  it("the request's start and the sweep's at once make one run and one event", async () => {
    const { match, signal } = await committedMatch();
    const [x, y] = await Promise.all([
      startMatch(harness.deps, match, signal),
      startMatch(harness.deps, match, signal),
    ]);
    assert.deepEqual([x.outcome, y.outcome, x.run_id], ['started', 'started', y.run_id]);
    assert.equal((await runsOf('matchId', match.id)).length, 1);
    assert.equal((await eventsOf('signal.matched', 'matchId', match.id)).length, 1);
  });

  async function committedFiring(overlap: 'skip' | 'allow' = 'allow') {
    const made = await harness.call('POST', '/v1/schedules', {
      token: a.token,
      body: { cron: '0 9 * * 1-5', timezone: 'UTC', overlap, target: huntTarget },
    });
    assert.equal(made.status, 201, made.text);
    const scheduleId = made.body.schedule.scheduleId;
    // The claim's own commit (jobs/schedules/firing.ts claimTick): the firing, pending; its start never comes.
    const firing = await harness.deps.db.transaction(async (trx) =>
      recordFiring(trx, (await getSchedule(trx, a.accountId, scheduleId, true))!, {
        scheduledFor: new Date(Date.now() - 60_000),
        trigger: 'tick',
        missed: 0,
      }),
    );
    assert.equal(firing!.outcome, 'pending');
    return { scheduleId, firing: firing! };
  }

  it('a firing committed but never started is started by the sweep, once, though it sweeps three times', async () => {
    const { scheduleId, firing } = await committedFiring();
    await age('schedule_firings', firing.id);
    await Promise.all([sweepPendingFirings(harness.deps), sweepPendingFirings(harness.deps)]);
    await sweepPendingFirings(harness.deps);
    const row = await harness.deps.db('schedule_firings').where({ id: firing.id }).first();
    assert.deepEqual([row.outcome, row.run_id], ['started', runIdOf(firing.id)]);
    assert.deepEqual(
      (await runsOf('firingId', firing.id)).map((r) => r.id),
      [row.run_id],
      'one run',
    );
    assert.equal((await eventsOf('schedule.fired', 'firingId', firing.id)).length, 1, 'one schedule.fired');
    const schedule = await harness.deps.db('schedules').where({ id: scheduleId }).first();
    assert.equal(schedule.last_run_id, row.run_id);
    assert.equal((await pollUntilRest(a.token, row.run_id)).status, 'ready', 'and it ran');
  });

  it('a lost firing no longer holds back an overlap-skip schedule once the sweep started it', async () => {
    const { scheduleId, firing } = await committedFiring('skip');
    const manual = await harness.call('POST', `/v1/schedules/${scheduleId}/trigger`, { token: a.token });
    assert.equal(manual.body.firing.outcome, 'skippedOverlap', 'the pending firing counts as running');
    await age('schedule_firings', firing.id);
    await sweepPendingFirings(harness.deps);
    const started = await harness.deps.db('schedule_firings').where({ id: firing.id }).first();
    await pollUntilRest(a.token, started.run_id);
    const next = await harness.call('POST', `/v1/schedules/${scheduleId}/trigger`, { token: a.token });
    assert.equal(next.body.firing.outcome, 'started', next.text);
  });

  it('a firing started twice at once (trigger and sweep) makes one run', async () => {
    const { firing } = await committedFiring();
    const schedule = (await getSchedule(harness.deps.db, a.accountId, firing.schedule_id))!;
    const target = schedule.target as RunTarget;
    const [x, y] = await Promise.all([
      startFiring(harness.deps, firing, target, schedule),
      startFiring(harness.deps, firing, target, schedule),
    ]);
    assert.deepEqual([x.outcome, y.outcome, x.run_id], ['started', 'started', y.run_id]);
    assert.equal((await runsOf('firingId', firing.id)).length, 1);
    assert.equal((await eventsOf('schedule.fired', 'firingId', firing.id)).length, 1);
  });
});
