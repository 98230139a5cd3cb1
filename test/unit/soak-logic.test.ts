import assert from 'node:assert/strict';
import {
  faultPlan,
  latencyByMinute,
  quantile,
  rssVerdicts,
  slopePerMin,
  streamProblem,
  unacceptedServerErrors,
  type RequestRecord,
} from '../../scripts/soak/logic.js';
import {
  chainOutcome,
  checkDeliveries,
  checkRuns,
  matchesEvents,
  type Attempt,
} from '../../scripts/soak/exactly-once.js';

const req = (t: number, status: number | null, extra: Partial<RequestRecord> = {}): RequestRecord => ({
  t,
  kind: 'read',
  status,
  ms: 10,
  retryAfter: false,
  ...extra,
});

describe('soak: statistics, fault plan, streams and RSS (scripts/soak/logic.ts)', () => {
  it('slope per minute by least squares; null with under three samples or no time spread', () => {
    const rising = Array.from({ length: 7 }, (_, i) => ({ t: i * 10, v: 100 + i }));
    assert.equal(slopePerMin(rising), 6);
    assert.equal(slopePerMin(rising.map((s) => ({ ...s, v: 50 }))), 0);
    assert.equal(slopePerMin(rising.slice(0, 2)), null);
    assert.equal(slopePerMin([0, 0, 0].map((t) => ({ t, v: t }))), null);
  });

  it('quantiles by nearest rank, and p50/p99 per minute of answered requests', () => {
    assert.equal(quantile([5, 1, 3, 2, 4], 0.5), 3);
    assert.equal(quantile([], 0.5), null);
    const reqs = [req(1, 200, { ms: 10 }), req(2, 200, { ms: 30 }), req(59, null), req(61, 200, { ms: 7 })];
    assert.deepEqual(latencyByMinute(reqs), [
      { minute: 0, requests: 3, noAnswer: 1, p50: 10, p99: 30 },
      { minute: 1, requests: 1, noAnswer: 0, p50: 7, p99: 7 },
    ]);
  });

  it('a 5xx outside an outage, or inside one without being a 503 with Retry-After, is not accepted', () => {
    const windows = [{ what: 'redis', from: 10, to: 20 }];
    const reqs = [
      req(5, 500),
      req(12, 503, { retryAfter: true }),
      req(13, 503),
      req(25, 500),
      req(40, 502),
      req(15, 404),
      req(16, null),
    ];
    const r = unacceptedServerErrors(reqs, windows, 10);
    assert.deepEqual(
      r.outside.map((x) => x.t),
      [5, 40],
    );
    assert.deepEqual(
      r.notFailFast.map((x) => x.t),
      [13, 25],
    );
    assert.equal(r.failFast, 1);
  });

  it('the fault plan: one restart of Redis and of Postgres, one receiver outage, kills alternating, in order', () => {
    const plan = faultPlan(1200, { killEveryS: 120, outageS: 15, restartAfterS: 5 });
    const kinds = plan.map((f) => f.kind);
    for (const once of ['redisRestart', 'postgresRestart', 'receiverOutage'] as const)
      assert.equal(kinds.filter((k) => k === once).length, 1, once);
    const kills = plan.filter((f) => f.kind === 'killWeb' || f.kind === 'killWorker');
    assert.equal(kills.length, 9);
    assert.deepEqual(
      kills.slice(0, 3).map((k) => k.kind),
      ['killWeb', 'killWorker', 'killWeb'],
    );
    assert.ok(kills.every((k) => k.at > 0 && k.at <= 1080));
    assert.deepEqual(
      plan.map((f) => f.at),
      [...plan.map((f) => f.at)].sort((a, b) => a - b),
    );
    assert.equal(faultPlan(60, { killEveryS: 120, outageS: 5, restartAfterS: 3 }).length, 5, 'at least two kills');
  });

  it('a followed stream runs on by one from the first id and ends with final', () => {
    const ev = (id: number, type = 'handoff') => ({ id, type });
    assert.equal(streamProblem([ev(1), ev(2), ev(3, 'final')]), null);
    assert.equal(streamProblem([ev(4), ev(5, 'final')], 3), null);
    assert.match(streamProblem([ev(1), ev(3, 'final')])!, /id 3, expected 2/);
    assert.match(streamProblem([ev(1), ev(1), ev(2, 'final')])!, /id 1, expected 2/);
    assert.match(streamProblem([ev(1), ev(2)])!, /not final/);
    assert.equal(streamProblem([]), 'no events');
  });

  it('RSS: peak over the limit fails; a rising slope fails only when its span is long enough to judge', () => {
    const life = (name: string, pid: number, from: number, n: number, mb: (i: number) => number) =>
      Array.from({ length: n }, (_, i) => ({ name, pid, t: from + i * 10, mb: mb(i) }));
    const samples = [
      ...life('web1', 1, 0, 80, (i) => 150 + i), // 6 MB/min over 800 s: judged, too steep
      ...life('web2', 2, 0, 10, (i) => 150 + i), // as steep, but 100 s: reported, not judged
      ...life('worker1', 3, 0, 5, () => 150),
      ...life('worker1', 4, 60, 80, (i) => (i === 3 ? 500 : 160)), // a second life, one peak over the limit
    ];
    const v = Object.fromEntries(
      rssVerdicts(samples, { maxMb: 400, slopeMax: 2, minSpanS: 300 }).map((x) => [x.name, x]),
    );
    assert.deepEqual([v.web1!.judged, v.web1!.ok, v.web1!.slope], [true, false, 6]);
    assert.deepEqual([v.web2!.judged, v.web2!.ok], [false, true]);
    assert.deepEqual([v.worker1!.lives, v.worker1!.maxMb, v.worker1!.ok, v.worker1!.slope], [2, 500, false, 0]);
  });
});

describe('soak: exactly-once checks (scripts/soak/exactly-once.ts)', () => {
  const statuses = {
    resting: ['ready', 'failed', 'canceled', 'NEEDS_INPUT'],
    terminal: ['ready', 'failed', 'canceled'],
  };

  it('matches event types as subscriptions do', () => {
    assert.ok(matchesEvents('run.failed', ['*']));
    assert.ok(matchesEvents('run.failed', ['task.completed', 'run.*']));
    assert.ok(!matchesEvents('runs.failed', ['run.*']));
    assert.ok(!matchesEvents('run.failed', ['run.completed']));
  });

  it('runs: clean data passes; stranded, missing, duplicated and uncanceled runs are each named', () => {
    const runs = [
      { id: 'r1', status: 'ready', segment: 0 },
      { id: 'r2', status: 'NEEDS_INPUT', segment: 1 },
      { id: 'r3', status: 'canceled', segment: 0 },
    ];
    const counts = {
      finals: new Map([
        ['r1:0', 1],
        ['r2:0', 1],
        ['r2:1', 1],
        ['r3:0', 1],
      ]),
      stepCompletions: new Map([['r1.0.1.hunt', 1]]),
      terminalEvents: new Map([
        ['r1', 1],
        ['r3', 1],
      ]),
    };
    const clean = checkRuns(runs, counts, { accepted: ['r1', 'r2'], canceled: ['r3'] }, statuses);
    assert.deepEqual(
      Object.entries(clean).filter(([k, v]) => k !== 'runs' && (v as string[]).length > 0),
      [],
    );
    const bad = checkRuns(
      [...runs, { id: 'r4', status: 'running', segment: 0 }, { id: 'r5', status: 'failed', segment: 0 }],
      {
        finals: new Map([...counts.finals, ['r1:0', 2]]),
        stepCompletions: new Map([['r1.0.1.hunt', 2]]),
        terminalEvents: new Map([['r1', 1]]),
      },
      { accepted: ['r1', 'r9'], canceled: ['r1'] },
      statuses,
    );
    assert.deepEqual(bad.stranded, ['r4 (running)']);
    assert.deepEqual(bad.missing, ['r9']);
    assert.deepEqual(bad.withoutFinal, ['r5 (failed, segment 0)']);
    assert.deepEqual(bad.duplicateFinals, ['r1:0 ×2']);
    assert.deepEqual(bad.duplicateSteps, ['r1.0.1.hunt ×2']);
    assert.deepEqual(bad.terminalEventNotOnce, ['r3 (canceled: 0)', 'r5 (failed: 0)']);
    assert.deepEqual(bad.cancelNotCanceled, ['r1 (ready)']);
  });

  const at = (n: number, status: string, extra: Partial<Attempt> = {}): Attempt => ({
    id: `d${n}`,
    rootId: 'd1',
    parentId: n === 1 ? null : `d${n - 1}`,
    attempt: n,
    status,
    eventId: 'e1',
    subscriptionId: 's1',
    ...extra,
  });

  it('a chain is delivered, dead-lettered at the cap, pending, or broken', () => {
    assert.deepEqual(chainOutcome([at(1, 'failed'), at(2, 'completed')], 4), { outcome: 'delivered' });
    assert.deepEqual(
      chainOutcome(
        [1, 2, 3, 4].map((n) => at(n, 'failed')),
        4,
      ),
      { outcome: 'deadLettered' },
    );
    assert.deepEqual(chainOutcome([at(1, 'failed'), at(2, 'queued')], 4), { outcome: 'pending' });
    assert.equal(chainOutcome([at(1, 'failed'), at(2, 'failed')], 4).outcome, 'broken', 'a retry not made');
    assert.equal(chainOutcome([at(1, 'completed'), at(2, 'completed')], 4).outcome, 'broken');
    assert.equal(
      chainOutcome(
        [1, 2, 3, 4, 5].map((n) => at(n, 'failed')),
        4,
      ).outcome,
      'broken',
    );
    assert.equal(chainOutcome([at(1, 'failed'), at(3, 'completed')], 4).outcome, 'broken', 'a gap');
  });

  it('deliveries: one chain per matching event, and the receiver acknowledged each delivered one exactly once', () => {
    const sub = { id: 's1', events: ['run.*'] };
    const events = [
      { id: 'e1', type: 'run.completed' },
      { id: 'e2', type: 'task.completed' },
    ];
    const chain = [at(1, 'failed'), at(2, 'completed')];
    const ok = checkDeliveries(sub, events, chain, new Map([['d1', 1]]), 4);
    assert.deepEqual([ok.events, ok.delivered, ok.problems], [1, 1, []]);
    const twice = checkDeliveries(sub, events, chain, new Map([['d1', 2]]), 4);
    assert.match(twice.problems[0]!, /acknowledged 2×/);
    const none = checkDeliveries(sub, [...events, { id: 'e3', type: 'run.failed' }], chain, new Map([['d1', 1]]), 4);
    assert.match(none.problems[0]!, /e3 \(run.failed\) has 0 delivery chains/);
    const dead = [1, 2, 3, 4].map((n) => at(n, 'failed'));
    const ackedDead = checkDeliveries(sub, events, dead, new Map([['d1', 1]]), 4);
    assert.deepEqual([ackedDead.deadLettered, ackedDead.problems.length], [1, 1]);
  });
});
