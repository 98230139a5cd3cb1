/**
 * Pure judgements the bench prints: whether a memory series trends up, and
 * each target of issue 9 against the figures of one run. Kept free of I/O
 * so test/unit/bench-verdicts.test.ts can hold them to their definitions.
 */

export interface Trend {
  /** Least-squares slope over the judged samples, MB per 1,000 runs. */
  slopeMbPer1000Runs: number;
  firstHalfMeanMb: number;
  secondHalfMeanMb: number;
  /** null when there are too few samples to say. */
  trendsUp: boolean | null;
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * RSS sampled every so many runs. The first two samples (start, and after
 * the first interval, while V8's heap and JIT warm up) are not judged. The
 * rest trends up when the mean of its second half exceeds its first half's
 * by more than 2 MB and 2 %, and the fitted slope is positive: a leak grows
 * steadily; a heap that settled only wobbles.
 */
export function rssTrend(series: Array<{ runs: number; mb: number }>): Trend {
  const judged = series.slice(2);
  if (judged.length < 4) return { slopeMbPer1000Runs: 0, firstHalfMeanMb: 0, secondHalfMeanMb: 0, trendsUp: null };
  const xs = judged.map((s) => s.runs / 1000);
  const ys = judged.map((s) => s.mb);
  const mx = mean(xs);
  const my = mean(ys);
  const slope = xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0) / xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  const half = Math.floor(ys.length / 2);
  const first = mean(ys.slice(0, half));
  const second = mean(ys.slice(ys.length - half));
  const grew = second - first;
  return {
    slopeMbPer1000Runs: round(slope),
    firstHalfMeanMb: round(first, 1),
    secondHalfMeanMb: round(second, 1),
    trendsUp: slope > 0 && grew > 2 && grew > first * 0.02,
  };
}

export interface TargetRow {
  figure: string;
  awp: string;
  primitive: string;
  ratio: number | null;
  target: string;
  /** null: not measured in this run (section not selected, or not built). */
  met: boolean | null;
  note?: string;
}

/** The figures the targets read, each optional: a section that did not run leaves its rows unmeasured. */
export interface Figures {
  layout?: string;
  sustained?: { awpPerSec: number; barePerSec: number; inFlight: number };
  latency?: { awpP50: number; bareP50: number };
  async?: { awpPerSec: number; barePerSec: number };
  healthz?: { awpPerSec: number; barePerSec: number };
  idleRssMb?: Record<string, number | null>;
  /** A bare Koa hello world started the same way, idle: the floor under the processes' RSS. */
  bareIdleRssMb?: number | null;
  rssAfterRuns?: { runs: number; lastMb: Record<string, number | null>; trendsUp: Record<string, boolean | null> };
  /** awp's identical-work run (3 `benchmark` steps, the peers' computation): what the peers row compares. */
  identicalWork?: { awpP50: number; awpPerSec: number; stepHashes: number };
  /** awp ÷ each peer, measured in the same run: p50 latency (lower is better) and throughput (higher is better). */
  peers?: Record<string, { latencyP50: number; throughput: number; p50Ms: number; perSec: number }>;
  /** Identical-work runs/s by worker processes (first count first), and the rate by calculation on a second machine. */
  workers?: {
    levels: Array<{ processes: number; perSec: number }>;
    cores: number;
    secondMachine?: { processes: number; cores: number; runsPerSec: number; limitedBy: string };
  };
  /** Tenant B's p50 idle and while tenant A has `queued` runs submitted (null: no loaded sample). */
  fairness?: { idleP50: number; loadedP50: number | null; queued: number };
}

/** The backlog the fairness target is set at. */
export const FAIRNESS_BACKLOG = 5000;

const ratioOf = (a: number, b: number) => round(a / b);
const none = (figure: string, target: string, note: string): TargetRow => ({
  figure,
  awp: '—',
  primitive: '—',
  ratio: null,
  target,
  met: null,
  note,
});

/** Issue 9's targets, in its order, each with its measured ratio and whether this run meets it. */
export function targetRows(f: Figures): TargetRow[] {
  const rows: TargetRow[] = [];
  const split = f.layout !== undefined && f.layout !== '0';
  if (f.sustained) {
    const r = ratioOf(f.sustained.awpPerSec, f.sustained.barePerSec);
    rows.push({
      figure: `Sustained 3-step runs/s, ${f.sustained.inFlight} in flight`,
      awp: `${f.sustained.awpPerSec} runs/s`,
      primitive: `bare BullMQ flows ${f.sustained.barePerSec}/s`,
      ratio: r,
      target: '≥ 0.5×',
      met: split ? r >= 0.5 : null,
      ...(split ? {} : { note: "workers ran in the bench process (BENCH_SPLIT=0): not the target's layout" }),
    });
  } else rows.push(none('Sustained 3-step runs/s, 32 in flight', '≥ 0.5×', 'runs section not run'));
  if (f.latency) {
    const limit = round(3 * f.latency.bareP50 + 1);
    rows.push({
      figure: '3-step run latency p50, sync answer over HTTP',
      awp: `${f.latency.awpP50} ms`,
      primitive: `bare flow ${f.latency.bareP50} ms`,
      ratio: ratioOf(f.latency.awpP50, f.latency.bareP50),
      target: `≤ 3× + 1 ms (${limit} ms)`,
      met: f.latency.awpP50 <= limit,
    });
  } else rows.push(none('3-step run latency p50, sync answer over HTTP', '≤ 3× + 1 ms', 'runs section not run'));
  if (f.async) {
    const r = ratioOf(f.async.awpPerSec, f.async.barePerSec);
    rows.push({
      figure: 'Async submissions/s (c=50)',
      awp: `${f.async.awpPerSec}/s`,
      primitive: `bare Koa + ajv + pg INSERT + queue.add ${f.async.barePerSec}/s`,
      ratio: r,
      target: '≥ 0.5×',
      met: split ? r >= 0.5 : null,
      ...(split ? {} : { note: 'workers ran in the bench process (BENCH_SPLIT=0)' }),
    });
  } else rows.push(none('Async submissions/s (c=50)', '≥ 0.5×', 'async section not run'));
  if (f.peers && Object.keys(f.peers).length > 0) {
    const entries = Object.entries(f.peers);
    rows.push({
      figure: 'Same workflow in DBOS Transact and LangGraph JS',
      awp: f.identicalWork
        ? `${f.identicalWork.awpP50} ms, ${f.identicalWork.awpPerSec}/s (benchmark steps, ` +
          `${f.identicalWork.stepHashes} hashes each)`
        : 'awp ÷ peer',
      primitive: entries.map(([name, p]) => `${name} ${p.p50Ms} ms, ${p.perSec}/s`).join('; '),
      ratio: null,
      target: 'awp ahead on runs/s and p50',
      met: entries.every(([, p]) => p.latencyP50 < 1 && p.throughput > 1),
      note: entries.map(([name, p]) => `${name}: p50 ${p.latencyP50}×, runs/s ${p.throughput}×`).join('; '),
    });
  } else
    rows.push(
      none('Same workflow in DBOS Transact and LangGraph JS', 'awp ahead on runs/s and p50', 'run with --peers'),
    );
  rows.push(...scaleOutRows(f));
  if (f.healthz) {
    const r = ratioOf(f.healthz.awpPerSec, f.healthz.barePerSec);
    rows.push({
      figure: 'GET /healthz under load (c=50)',
      awp: `${f.healthz.awpPerSec}/s`,
      primitive: `bare Koa hello world ${f.healthz.barePerSec}/s`,
      ratio: r,
      target: '≥ 0.3×',
      met: r >= 0.3,
    });
  } else rows.push(none('GET /healthz under load (c=50)', '≥ 0.3×', 'healthz section not run'));
  if (f.idleRssMb && Object.keys(f.idleRssMb).length > 0) {
    const values = Object.values(f.idleRssMb);
    const max = Math.max(...values.map((v) => v ?? Infinity));
    rows.push({
      figure: 'Idle RSS per process',
      awp: Object.entries(f.idleRssMb)
        .map(([k, v]) => `${k} ${v} MB`)
        .join(', '),
      primitive: f.bareIdleRssMb ? `bare Koa hello world ${f.bareIdleRssMb} MB` : '—',
      ratio: null,
      target: '≤ 150 MB',
      met: Number.isFinite(max) && (max > 150 || f.layout === '2') ? max <= 150 : null,
      ...(f.layout === '2' ? {} : { note: 'the API ran in the bench process (BENCH_SPLIT=1)' }),
    });
  } else
    rows.push(
      none(
        'Idle RSS per process',
        '≤ 150 MB',
        f.layout === '0' ? 'API and workers ran in the bench process (BENCH_SPLIT=0)' : 'not measured',
      ),
    );
  if (f.rssAfterRuns) {
    const verdicts = Object.values(f.rssAfterRuns.trendsUp);
    // Trending up anywhere misses the target; all flat meets it only when every serving process was measured.
    const met = verdicts.some((v) => v === true)
      ? false
      : verdicts.some((v) => v === null) || f.layout !== '2'
        ? null
        : true;
    rows.push({
      figure: `RSS after ${f.rssAfterRuns.runs} runs`,
      awp: Object.entries(f.rssAfterRuns.lastMb)
        .map(([k, v]) => `${k} ${v} MB${f.rssAfterRuns!.trendsUp[k] ? ' (trends up)' : ''}`)
        .join(', '),
      primitive: '—',
      ratio: null,
      target: 'no upward trend',
      met,
    });
  } else
    rows.push(
      none(
        'RSS after 10,000 runs',
        'no upward trend',
        f.layout === '0' ? 'API and workers ran in the bench process (BENCH_SPLIT=0)' : 'rss section not run',
      ),
    );
  return rows;
}

/** Scale-out (worker processes) and fairness (a tenant's p50 behind another's backlog), when measured. */
function scaleOutRows(f: Figures): TargetRow[] {
  const rows: TargetRow[] = [];
  const w = f.workers;
  if (w && w.levels.length > 0) {
    const first = w.levels[0]!;
    const last = w.levels[w.levels.length - 1]!;
    const calc = w.secondMachine;
    rows.push({
      figure: `Identical-work runs/s by worker processes (${w.levels.map((l) => l.processes).join(', ')})`,
      awp: w.levels.map((l) => `${l.processes}: ${l.perSec}`).join(', ') + ' runs/s',
      primitive: calc
        ? `by calculation, ${calc.processes} on a second ${calc.cores}-core machine: ${calc.runsPerSec}/s ` +
          `(${calc.limitedBy})`
        : `${first.processes} worker process(es)`,
      ratio: ratioOf(last.perSec, first.perSec),
      target: 'scales with the cores it gets',
      met: null,
      note: `${w.cores} cores shared by every process: read byCalculation (docs/benchmarks.md)`,
    });
  }
  const fair = f.fairness;
  if (fair) {
    const r = fair.loadedP50 === null ? null : ratioOf(fair.loadedP50, fair.idleP50);
    const scaled = fair.queued !== FAIRNESS_BACKLOG ? `scaled down from ${FAIRNESS_BACKLOG} queued` : undefined;
    rows.push({
      figure: `Tenant B p50 while tenant A has ${fair.queued} runs queued`,
      awp: fair.loadedP50 === null ? '—' : `${fair.loadedP50} ms`,
      primitive: `tenant B idle ${fair.idleP50} ms`,
      ratio: r,
      target: '≤ 2×',
      met: r === null ? null : r <= 2,
      ...(r === null
        ? { note: "A's backlog fell under its floor before B's loaded runs" }
        : scaled
          ? { note: scaled }
          : {}),
    });
  }
  return rows;
}

/** The rows as an aligned text table for stderr. */
export function formatTable(rows: TargetRow[]): string {
  const cells = [
    ['Figure', 'awp', 'Raw primitive', 'Ratio', 'Target', 'Met?'],
    ...rows.map((r) => [
      r.figure,
      r.awp,
      r.primitive,
      r.ratio === null ? '—' : `${r.ratio}×`,
      r.target,
      r.met === null ? `n/a${r.note ? ` (${r.note})` : ''}` : `${r.met ? 'yes' : 'NO'}${r.note ? ` (${r.note})` : ''}`,
    ]),
  ];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells
    .map((row, k) => {
      const line = row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join(' | ');
      return k === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}` : line;
    })
    .join('\n');
}
