import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { queryFamily } from '../../scripts/bench/pg-stats.js';
import { category, summariseProfile, type CpuProfile } from '../../scripts/bench/profile.js';
import { callsDelta, parseInfo, type RedisSnapshot } from '../../scripts/bench/redis-stats.js';
import { runsPerSecBound, workerCounts } from '../../scripts/bench/scale-out.js';
import { rssTrend, targetRows, type Figures } from '../../scripts/bench/verdicts.js';

/** The judgements `npm run bench` prints; the figures themselves are never asserted (they are timings). */
describe('bench verdicts', () => {
  const series = (mbs: number[]) => mbs.map((mb, i) => ({ runs: i * 1000, mb }));

  it('an RSS series that keeps growing trends up; one that settled and wobbles does not', () => {
    assert.equal(rssTrend(series([150, 160, 162, 165, 168, 171, 174, 177, 180, 183, 186])).trendsUp, true);
    // Warm-up growth (the first two samples) is not judged; afterwards the heap only wobbles.
    assert.equal(rssTrend(series([120, 160, 171, 169, 172, 170, 171, 169, 172, 170, 171])).trendsUp, false);
    assert.equal(rssTrend(series([170, 171, 172])).trendsUp, null, 'too few samples to say');
  });

  it('each target is judged from its own figures, and a figure not measured is not met or missed', () => {
    const figures: Figures = {
      layout: '2',
      sustained: { awpPerSec: 400, barePerSec: 700, inFlight: 32 },
      latency: { awpP50: 20, bareP50: 5 },
      async: { awpPerSec: 1000, barePerSec: 4000 },
      idleRssMb: { api: 120, workers: 151 },
      rssAfterRuns: { runs: 10_000, lastMb: { api: 130, workers: 140 }, trendsUp: { api: false, workers: false } },
    };
    const rows = targetRows(figures);
    const met = Object.fromEntries(rows.map((r) => [r.figure.split(',')[0]!.split(' (')[0], r.met]));
    assert.equal(met['Sustained 3-step runs/s'], true, '400/700 ≥ 0.5');
    assert.equal(met['3-step run latency p50'], false, '20 ms > 3 × 5 + 1');
    assert.equal(met['Async submissions/s'], false, '0.25 < 0.5');
    assert.equal(met['GET /healthz under load'], null, 'not measured');
    assert.equal(met['Same workflow in DBOS Transact and LangGraph JS'], null);
    const peerRow = (peers: Figures['peers']) =>
      targetRows({ peers }).find((r) => r.figure.startsWith('Same workflow'))!.met;
    assert.equal(
      peerRow({
        dbos: { latencyP50: 0.8, throughput: 1.2, p50Ms: 10, perSec: 100 },
        langgraph: { latencyP50: 0.5, throughput: 2, p50Ms: 20, perSec: 50 },
      }),
      true,
    );
    assert.equal(
      peerRow({ dbos: { latencyP50: 1.1, throughput: 1.2, p50Ms: 10, perSec: 100 } }),
      false,
      'slower than a peer at p50',
    );
    assert.equal(
      peerRow({ dbos: { latencyP50: 0.9, throughput: 0.9, p50Ms: 10, perSec: 100 } }),
      false,
      'fewer runs/s than a peer',
    );
    assert.equal(met['Idle RSS per process'], false, 'the workers are over 150 MB');
    assert.equal(met['RSS after 10000 runs'], true);
    assert.equal(rows.find((r) => r.figure.startsWith('3-step'))!.ratio, 4);
    // With the workers in the bench process the throughput targets' layout is not met, so they are not judged.
    assert.equal(targetRows({ ...figures, layout: '0' }).find((r) => r.figure.startsWith('Sustained'))!.met, null);
    // With the API in the bench process only the workers' RSS is known: over the limit is a miss, under it proves
    // nothing.
    const idle = (layout: string, workers: number) =>
      targetRows({ layout, idleRssMb: { workers } }).find((r) => r.figure === 'Idle RSS per process')!.met;
    assert.equal(idle('1', 151), false);
    assert.equal(idle('1', 100), null);
    assert.equal(idle('2', 100), true);
  });

  it("judges tenant B's loaded p50 against 2× its idle p50, and says when the backlog was scaled down", () => {
    const row = (fairness: Figures['fairness']) =>
      targetRows({ fairness }).find((r) => r.figure.startsWith('Tenant B'))!;
    assert.equal(row({ idleP50: 20, loadedP50: 40, queued: 5000 }).met, true, 'exactly 2×');
    assert.equal(row({ idleP50: 20, loadedP50: 41, queued: 5000 }).met, false);
    assert.equal(row({ idleP50: 20, loadedP50: 41, queued: 5000 }).note, undefined);
    assert.match(row({ idleP50: 20, loadedP50: 30, queued: 500 }).note!, /scaled down from 5000/);
    assert.equal(row({ idleP50: 20, loadedP50: null, queued: 5000 }).met, null, 'no loaded sample: not judged');
    const workers = targetRows({
      workers: {
        levels: [
          { processes: 1, perSec: 50 },
          { processes: 4, perSec: 55 },
        ],
        cores: 2,
      },
    }).find((r) => r.figure.startsWith('Identical-work runs/s by worker processes'))!;
    assert.equal(workers.ratio, 1.1);
    assert.equal(workers.met, null, 'a 2-core machine cannot show scale-out: read, not judged');
  });

  it('bounds runs/s by each one-core process, the worker processes and each machine, and names the least', () => {
    const cpu = { api: 5, workers: 10, postgres: 8, redis: 2, 'bench (client)': 2 };
    const all = ['api', 'workers', 'postgres', 'redis', 'bench (client)'];
    const one = runsPerSecBound(cpu, 1, [{ name: 'this machine', cores: 2, roles: all }]);
    assert.equal(one.runsPerSec, 74.1, '2 × 1000 / 27 ms of CPU per run in all');
    assert.match(one.limitedBy, /^this machine/);
    assert.match(one.calculation, /= 74\.1 \(this machine/);
    const split = (w: number) =>
      runsPerSecBound(cpu, w, [
        { name: 'first', cores: 2, roles: ['api', 'postgres', 'redis', 'bench (client)'] },
        { name: 'second', cores: 4, roles: ['workers'] },
      ]);
    assert.deepEqual([split(1).runsPerSec, split(1).limitedBy], [100, '1 worker process'], '1000 / 10');
    assert.deepEqual(
      [split(4).runsPerSec, split(4).limitedBy],
      [117.6, 'first (2 cores: api, postgres, redis, ' + 'bench (client))'],
      "2 × 1000 / 17: the first machine, not the second machine's 400",
    );
    assert.equal(
      runsPerSecBound({ ...cpu, api: 12 }, 4, [{ name: 'big', cores: 64, roles: all }]).limitedBy,
      'api process',
      'one API process: one core',
    );
    assert.deepEqual(workerCounts('4, 1,2,2'), [1, 2, 4]);
    assert.throws(() => workerCounts('0,2'), /BENCH_WORKER_COUNTS/);
  });

  it('names a statement by its verb and table', () => {
    assert.equal(queryFamily('BEGIN'), 'BEGIN');
    assert.equal(queryFamily('select * from "run_steps" where "run_id" = $1'), 'select run_steps');
    assert.equal(
      queryFamily('select "status" from "runs" where "id" = $1 limit $2 for update'),
      'select runs for update',
    );
    assert.equal(
      queryFamily(
        'WITH bump AS ( UPDATE runs SET event_seq = event_seq + $1 WHERE id = $2 RETURNING event_seq) INSERT ' +
          'INTO run_events (run_id) SELECT 1',
      ),
      'insert run_events + update runs',
    );
    assert.equal(
      queryFamily('insert into "events" ("id") values ($1) on conflict do update set "x" = 1'),
      'insert events',
    );
  });

  it("counts Redis commands between two INFO snapshots without the bench's own", () => {
    assert.deepEqual(parseInfo('# Commandstats\r\ncmdstat_get:calls=3,usec=1\r\n'), { cmdstat_get: 'calls=3,usec=1' });
    const snap = (calls: Record<string, number>): RedisSnapshot => ({ calls, usedMemory: 0, keys: 0 });
    assert.deepEqual(
      callsDelta(snap({ evalsha: 10, info: 5 }), snap({ evalsha: 30, info: 7, dbsize: 1, publish: 4 })),
      { evalsha: 20, publish: 4 },
    );
  });

  it('cuts a CPU profile to its windows and sums self time by function and category', () => {
    const root = '/app';
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 } },
        {
          id: 2,
          callFrame: {
            functionName: 'toSQL',
            url: pathToFileURL(path.join(root, 'node_modules/knex/lib/q.js')).href,
            lineNumber: 9,
          },
        },
        { id: 3, callFrame: { functionName: 'writev', url: '', lineNumber: -1 } },
        { id: 4, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
      ],
      // Samples at 1000, 2000, 3000, 4000, 5000 µs; each lasts until the next.
      startTime: 0,
      endTime: 6000,
      samples: [2, 3, 2, 4, 2],
      timeDeltas: [1000, 1000, 1000, 1000, 1000],
    };
    const whole = summariseProfile(profile, [], root);
    assert.equal(whole.busyMs, 3, 'the last sample has no successor, so it counts nothing; idle is not busy');
    assert.deepEqual(
      whole.byCategory.map((c) => [c.category, c.pct]),
      [
        ['knex', 66.7],
        ['(native: socket writes)', 33.3],
      ],
    );
    assert.deepEqual(whole.topFunctions[0], { fn: 'toSQL', where: 'knex/lib/q.js:10', selfMs: 2, pct: 66.7 });
    const cut = summariseProfile(profile, [{ startUs: 1500, endUs: 2500 }], root);
    assert.deepEqual(
      cut.byCategory.map((c) => c.category),
      ['(native: socket writes)'],
    );
    assert.equal(category('emit', 'node:events', root), 'node:events');
    assert.equal(category('f', pathToFileURL('/app/jobs/orchestrator/flow.ts').href, root), 'jobs/orchestrator');
  });
});
