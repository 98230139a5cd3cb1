/**
 * The soak's pure parts: statistics over samples, the fault plan, and the
 * exactly-once checks over rows read from Postgres and what the load driver
 * and the webhook receiver saw. No I/O here, so test/unit/soak-logic.test.ts
 * can feed it sample data.
 */

/** A value sampled at `t` seconds after the soak started. */
export interface Sample {
  t: number;
  v: number;
}

/** Least-squares slope of `v` per minute, or null with fewer than 3 samples or no spread in time. */
export function slopePerMin(samples: Sample[]): number | null {
  if (samples.length < 3) return null;
  const n = samples.length;
  const mt = samples.reduce((s, x) => s + x.t, 0) / n;
  const mv = samples.reduce((s, x) => s + x.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const x of samples) {
    num += (x.t - mt) * (x.v - mv);
    den += (x.t - mt) ** 2;
  }
  return den === 0 ? null : (num / den) * 60;
}

/** The value at quantile `p` (0..1) of `values` (nearest rank), or null when there are none. */
export function quantile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
}

/** One HTTP request of the load: `status` null when no answer came (connection refused or reset, timeout). */
export interface RequestRecord {
  t: number;
  kind: string;
  status: number | null;
  ms: number;
  retryAfter: boolean;
  error?: string;
}

export interface MinuteLatency {
  minute: number;
  requests: number;
  noAnswer: number;
  p50: number | null;
  p99: number | null;
}

/** p50/p99 of answered requests per minute of the soak (by start time); requests without an answer are counted. */
export function latencyByMinute(reqs: RequestRecord[]): MinuteLatency[] {
  const byMinute = new Map<number, RequestRecord[]>();
  for (const r of reqs) {
    const m = Math.floor(r.t / 60);
    byMinute.set(m, [...(byMinute.get(m) ?? []), r]);
  }
  return [...byMinute.entries()]
    .sort(([a], [b]) => a - b)
    .map(([minute, rs]) => {
      const answered = rs.filter((r) => r.status !== null).map((r) => r.ms);
      return {
        minute,
        requests: rs.length,
        noAnswer: rs.length - answered.length,
        p50: quantile(answered, 0.5),
        p99: quantile(answered, 0.99),
      };
    });
}

/** A span (seconds since start) when a dependency was away: Redis, Postgres. */
export interface OutageWindow {
  what: string;
  from: number;
  to: number;
}

/**
 * Server errors the soak does not accept: any 5xx outside an outage (its
 * window stretched by `graceS` after the dependency came back, for clients
 * and pools to reconnect), and inside one any 5xx but a 503 with Retry-After.
 */
export function unacceptedServerErrors(reqs: RequestRecord[], windows: OutageWindow[], graceS: number) {
  const during = (r: RequestRecord) => windows.some((w) => r.t + r.ms / 1000 >= w.from && r.t <= w.to + graceS);
  const outside: RequestRecord[] = [];
  const notFailFast: RequestRecord[] = [];
  let failFast = 0;
  for (const r of reqs) {
    if (r.status === null || r.status < 500) continue;
    if (!during(r)) outside.push(r);
    else if (r.status === 503 && r.retryAfter) failFast++;
    else notFailFast.push(r);
  }
  return { outside, notFailFast, failFast };
}

export type FaultKind = 'killWeb' | 'killWorker' | 'redisRestart' | 'postgresRestart' | 'receiverOutage';

/** One fault, `at` seconds after the load started; `forS` how long the thing stays away. */
export interface PlannedFault {
  at: number;
  kind: FaultKind;
  forS: number;
}

/**
 * The fault schedule over a load of `durationS`: one Redis restart, one
 * Postgres restart and one receiver outage at fixed fractions of the run,
 * and a SIGKILL of a web or a worker (alternating) every `killEveryS`, at
 * least two, none in the last tenth (so what they break can be seen mending).
 */
export function faultPlan(durationS: number, opts: { killEveryS: number; outageS: number; restartAfterS: number }) {
  const at = (f: number) => Math.round(durationS * f);
  const plan: PlannedFault[] = [
    { at: at(0.3), kind: 'redisRestart', forS: opts.outageS },
    { at: at(0.55), kind: 'postgresRestart', forS: opts.outageS },
    { at: at(0.7), kind: 'receiverOutage', forS: Math.max(opts.outageS, Math.round(durationS * 0.1)) },
  ];
  const kills = Math.max(2, Math.floor((durationS * 0.9) / opts.killEveryS));
  const step = (durationS * 0.9) / (kills + 1);
  for (let k = 1; k <= kills; k++)
    plan.push({ at: Math.round(step * k), kind: k % 2 ? 'killWeb' : 'killWorker', forS: opts.restartAfterS });
  return plan.sort((a, b) => a.at - b.at);
}

/**
 * What is wrong with one followed stream of a run's events, or null: its
 * ids must run on by one from the first (no gap, no repeat) and it must end
 * with `final`. A stream that resumes after N starts at N + 1.
 */
export function streamProblem(events: Array<{ id: number; type: string }>, after = 0): string | null {
  if (events.length === 0) return 'no events';
  for (let i = 0; i < events.length; i++)
    if (events[i]!.id !== after + i + 1) return `event ${i + 1} has id ${events[i]!.id}, expected ${after + i + 1}`;
  return events.at(-1)!.type === 'final' ? null : `ends with ${events.at(-1)!.type}, not final`;
}

/** RSS of one process over the soak: each of its lives (pids), and the verdict on its longest. */
export interface RssVerdict {
  name: string;
  lives: number;
  firstMb: number;
  lastMb: number;
  maxMb: number;
  /** MB per minute over the second half of its longest life; null when too few samples. */
  slope: number | null;
  /** Seconds that slope spans. */
  spanS: number;
  judged: boolean;
  ok: boolean;
}

/**
 * Per process: its peak must stay under `maxMb` in every life; the slope of
 * its longest life, taken over that life's second half (start-up growth
 * left out), must stay under `slopeMax` MB/min, judged only when that half
 * spans at least `minSpanS` (a minute of samples says little about a leak).
 */
export function rssVerdicts(
  samples: Array<{ name: string; pid: number; t: number; mb: number }>,
  opts: { maxMb: number; slopeMax: number; minSpanS: number },
): RssVerdict[] {
  const names = [...new Set(samples.map((s) => s.name))].sort();
  return names.map((name) => {
    const mine = samples.filter((s) => s.name === name);
    const lives = new Map<number, Sample[]>();
    for (const s of mine) lives.set(s.pid, [...(lives.get(s.pid) ?? []), { t: s.t, v: s.mb }]);
    const span = (l: Sample[]) => l.at(-1)!.t - l[0]!.t;
    const longest = [...lives.values()].sort((a, b) => span(b) - span(a))[0]!;
    const half = longest.filter((s) => s.t >= longest[0]!.t + span(longest) / 2);
    const slope = slopePerMin(half);
    const spanS = half.length ? span(half) : 0;
    const maxMb = Math.max(...mine.map((s) => s.mb));
    const judged = slope !== null && spanS >= opts.minSpanS;
    return {
      name,
      lives: lives.size,
      firstMb: mine[0]!.mb,
      lastMb: mine.at(-1)!.mb,
      maxMb,
      slope: slope === null ? null : Math.round(slope * 100) / 100,
      spanS: Math.round(spanS),
      judged,
      ok: maxMb <= opts.maxMb && (!judged || slope! <= opts.slopeMax),
    };
  });
}
