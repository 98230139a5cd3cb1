import { RESTING_STATUSES, TERMINAL_STATUSES } from '../../jobs/orchestrator/run-state.js';
import type { Db } from '../../shared/db/knex.js';
import { chainDigest } from './bodies.js';
import { maxAttempts, type SoakConfig } from './config.js';
import { checkDeliveries, checkRuns } from './exactly-once.js';
import { rssVerdicts, unacceptedServerErrors, type OutageWindow, type RssVerdict } from './logic.js';
import type { Incarnation } from './processes.js';
import { automation, benchmarkResults, ledger, runFacts } from './queries.js';
import type { Receiver } from './receiver.js';
import type { Samplers } from './samplers.js';
import type { SoakFixtures } from './setup.js';
import type { Tracker } from './tracker.js';
import type { RequestRecord } from './logic.js';

/** One verdict of the soak: its name, whether it held, one line on it, and what was found wrong (capped). */
export interface Check {
  name: string;
  ok: boolean;
  summary: string;
  details: string[];
}

const cap = (xs: string[], n = 15) => (xs.length > n ? [...xs.slice(0, n), `… ${xs.length - n} more`] : xs);
const check = (name: string, details: string[], summary: string): Check => ({
  name,
  ok: details.length === 0,
  summary,
  details: cap(details),
});

export interface CheckInputs {
  db: Db;
  accountId: string;
  config: SoakConfig;
  tracker: Tracker;
  fixtures: SoakFixtures;
  receiver: Receiver;
  records: RequestRecord[];
  windows: OutageWindow[];
  samplers: Samplers;
  lives: Incarnation[];
  exitCodes: Record<string, number | string>;
  processCount: number;
}

/** Every check, in the order the report shows them; `rss` is kept for the report's table. */
export async function runChecks(i: CheckInputs): Promise<{ checks: Check[]; rss: RssVerdict[] }> {
  const checks: Check[] = [];
  const { runs, counts } = await runFacts(i.db, i.accountId);
  const r = checkRuns(
    runs,
    counts,
    { accepted: i.tracker.accepted, canceled: i.tracker.canceled },
    { resting: RESTING_STATUSES, terminal: TERMINAL_STATUSES },
  );
  checks.push(
    check(
      'Every accepted run at rest, exactly once',
      [
        ...r.stranded.map((x) => `stranded: ${x}`),
        ...r.missing.map((x) => `accepted but not in Postgres: ${x}`),
        ...r.withoutFinal.map((x) => `at rest without its final: ${x}`),
        ...r.duplicateFinals.map((x) => `final written more than once: ${x}`),
        ...r.duplicateSteps.map((x) => `step completed more than once: ${x}`),
        ...r.terminalEventNotOnce.map((x) => `terminal run.* events not exactly one: ${x}`),
        ...r.cancelNotCanceled.map((x) => `cancel answered 200, run not canceled: ${x}`),
      ],
      `${r.runs} runs in Postgres, ${i.tracker.accepted.size} run ids handed to the load, ` +
        `${i.tracker.canceled.size} cancels answered 200`,
    ),
  );
  const bench = await benchmarkResults(i.db, i.accountId);
  const wrong = bench.filter((b) => b.digest !== chainDigest(b.id, b.hashes ?? 100, b.steps));
  checks.push(
    check(
      'Benchmark digests prove each step ran once, in order',
      wrong.map((b) => `${b.id}: digest ${String(b.digest).slice(0, 12)}… is not its ${b.steps} steps'`),
      `${bench.length} ready benchmark runs checked in Postgres, ${i.tracker.digests.checked} in sync answers`,
    ),
  );
  checks.push(
    check(
      'Answers: streams gapless and ending in final, duplicate signals matched once',
      i.tracker.problems,
      `${i.tracker.streams.followed} streams answered 200 (${i.tracker.streams.cut} of them cut before final by a ` +
        `killed web process), ${i.tracker.streams.unanswered} not answered 200`,
    ),
  );
  const { attempts, events } = await ledger(
    i.db,
    i.accountId,
    i.fixtures.subscriptions.map((s) => s.id),
  );
  const max = maxAttempts(i.config);
  const deliveries = i.fixtures.subscriptions.map((s) =>
    checkDeliveries(s, events.get(s.id) ?? [], attempts, i.receiver.acknowledged, max),
  );
  checks.push(
    check(
      `Every event delivered once per subscription, or dead-lettered after ${max} attempts`,
      [
        ...deliveries.flatMap((d) => [
          ...d.problems.map((p) => `${d.subscription}: ${p}`),
          ...(d.pending ? [`${d.subscription}: ${d.pending} chains still pending after the drain`] : []),
        ]),
        ...(i.receiver.badSignatures ? [`${i.receiver.badSignatures} deliveries failed signature checks`] : []),
      ],
      deliveries
        .map((d) => `${d.subscription}: ${d.events} events, ${d.delivered} delivered, ${d.deadLettered} dead-lettered`)
        .join('; '),
    ),
  );
  const errors = unacceptedServerErrors(i.records, i.windows, i.config.outageGraceS);
  const show = (x: RequestRecord) => `${x.kind} at ${Math.round(x.t)} s: ${x.status}${x.retryAfter ? ' +RA' : ''}`;
  checks.push(
    check(
      'No 5xx but 503 with Retry-After during an outage',
      [
        ...errors.outside.map((x) => `outside an outage: ${show(x)}`),
        ...errors.notFailFast.map((x) => `during: ${show(x)}`),
      ],
      `${i.records.length} requests; ${errors.failFast} fail-fast 503s during outages; ` +
        `${errors.outside.length} 5xx outside, ${errors.notFailFast.length} other 5xx during`,
    ),
  );
  const rss = rssVerdicts(i.samplers.rss, {
    maxMb: i.config.rssMaxMb,
    slopeMax: i.config.rssSlopeMaxMbPerMin,
    minSpanS: i.config.rssSlopeMinSpanS,
  });
  checks.push(
    check(
      'RSS per process bounded',
      rss.filter((v) => !v.ok).map((v) => `${v.name}: peak ${v.maxMb} MB, slope ${v.slope} MB/min over ${v.spanS} s`),
      `peak ≤ ${i.config.rssMaxMb} MB; slope ≤ ${i.config.rssSlopeMaxMbPerMin} MB/min judged over ≥ ` +
        `${i.config.rssSlopeMinSpanS} s (${rss.filter((v) => v.judged).length} of ${rss.length} long enough)`,
    ),
  );
  const connBound = i.processCount * i.config.dbPoolMax + 10;
  const connMax = Math.max(0, ...i.samplers.pgConnections.map((s) => s.v));
  const redisMax = Math.max(0, ...i.samplers.redisMb.map((s) => s.v));
  checks.push(
    check(
      'Postgres connections and Redis memory bounded',
      [
        ...(connMax > connBound ? [`${connMax} connections > ${connBound}`] : []),
        ...(redisMax > i.config.redisMaxMb ? [`Redis used ${redisMax} MB > ${i.config.redisMaxMb} MB`] : []),
      ],
      `connections peak ${connMax} (bound ${connBound}: ${i.processCount} processes × DB_POOL_MAX ` +
        `${i.config.dbPoolMax} + 10); Redis used_memory peak ${redisMax} MB (bound ${i.config.redisMaxMb} MB)`,
    ),
  );
  const auto = await automation(i.db, i.accountId);
  checks.push(
    check(
      'Schedule firings and signal matches settled',
      [
        ...(auto.firings.pending ? [`${auto.firings.pending} schedule firings still pending`] : []),
        ...(auto.matches.pending ? [`${auto.matches.pending} signal matches still pending`] : []),
      ],
      `firings ${JSON.stringify(auto.firings)}; matches ${JSON.stringify(auto.matches)}`,
    ),
  );
  const crashed = i.lives.filter((l) => l.ended?.includes('on its own'));
  const unclean = Object.entries(i.exitCodes).filter(([, c]) => c !== 0);
  checks.push(
    check(
      'Processes: none died on its own, each stops cleanly on SIGTERM',
      [
        ...crashed.map((l) => `${l.name} (pid ${l.pid}) ${l.ended} at ${Math.round(l.endedAt ?? 0)} s`),
        ...unclean.map(([n, c]) => `${n} stopped with ${c}`),
      ],
      `${i.lives.length} process lives`,
    ),
  );
  return { checks, rss };
}
