import type { Check } from './checks.js';
import type { SoakConfig } from './config.js';
import type { FaultRecord } from './faults.js';
import { latencyByMinute, type RequestRecord, type RssVerdict, type Sample } from './logic.js';

/** Everything the report shows. */
export interface ReportInput {
  config: SoakConfig;
  startedAt: string;
  loadS: number;
  /** When the last action the load started had ended (sync waits, streams, polls run past the load). */
  actionsEndedS: number;
  drainS: number;
  drained: boolean;
  checks: Check[];
  faults: FaultRecord[];
  outcomes: Map<string, number>;
  runStatuses: Record<string, number>;
  receiverAnswers: Record<string, number>;
  records: RequestRecord[];
  rss: RssVerdict[];
  pgConnections: Sample[];
  redisMb: Sample[];
  load: { started: number; skipped: number };
}

const fmt = (v: number | null) => (v === null ? '—' : String(Math.round(v * 10) / 10));
const table = (head: string[], rows: Array<Array<string | number>>) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join(
    '\n',
  );

/** The largest value per minute of a sampled series, as `minute: value` pairs. */
const perMinuteMax = (s: Sample[]) => {
  const m = new Map<number, number>();
  for (const x of s) m.set(Math.floor(x.t / 60), Math.max(m.get(Math.floor(x.t / 60)) ?? 0, x.v));
  return [...m.entries()].map(([k, v]) => `${k}: ${v}`).join(', ') || 'no samples';
};

/** The soak's markdown report: verdicts first, then what they were judged on. */
export function renderReport(r: ReportInput): string {
  const c = r.config;
  const failed = r.checks.filter((x) => !x.ok);
  const apiCalls = r.records.filter(
    (x) => x.kind !== 'run sync' && !x.kind.startsWith('run stream') && x.kind !== 'events sse',
  );
  const syncRuns = r.records.filter((x) => x.kind === 'run sync');
  const syncByMinute = new Map(latencyByMinute(syncRuns).map((m) => [m.minute, m]));
  const out = [
    `# Soak report`,
    '',
    `${r.startedAt}: ${c.quick ? 'quick' : 'full'} soak, ${r.loadS} s of load at ${c.rate} actions/s (at most ` +
      `${c.maxInFlight} at once; ${r.load.started} started, ${r.load.skipped} skipped at the cap; the last ended at ` +
      `${r.actionsEndedS} s), then ` +
      `${r.drainS} s of drain (${r.drained ? 'runs and deliveries settled' : 'NOT settled when the drain ended'}). ` +
      `Processes as the Procfile: 2 web, 2 worker, 1 delivery, 1 clock (${c.tsx ? 'tsx' : 'compiled dist/'}). ` +
      `Redis restart ${c.redisPersist ? 'keeps its data (append-only file)' : 'loses its data (no persistence)'}; ` +
      `Postgres restart is \`pg_ctl -m fast\` (connections cut, data kept). Webhook retries ` +
      `${c.webhookRetryMs} ms, timeout ${c.webhookTimeoutMs} ms.`,
    '',
    `**${failed.length === 0 ? 'All checks passed' : `${failed.length} of ${r.checks.length} checks failed`}.**`,
    '',
    table(
      ['Check', 'Result', 'On what'],
      r.checks.map((x) => [x.name, x.ok ? 'pass' : '**FAIL**', x.summary]),
    ),
    ...failed.flatMap((x) => ['', `### ${x.name}`, '', ...x.details.map((d) => `- ${d}`)]),
    '',
    '## Faults',
    '',
    table(
      ['At (s)', 'Fault', 'Target', 'Mended after (s)'],
      r.faults.map((f) => [
        Math.round(f.at),
        f.kind,
        f.target,
        f.error ? `failed: ${f.error}` : fmt(f.mendedAt === undefined ? null : f.mendedAt - f.at),
      ]),
    ),
    '',
    '## Latency per minute',
    '',
    'API calls (everything but sync runs and streams), and sync runs (`POST /v1/orchestrator/run`, waiting for ' +
      'the run to rest), in ms; "no answer" is refused, reset or timed out.',
    '',
    table(
      ['Minute', 'API calls', 'no answer', 'p50', 'p99', 'sync runs', 'p50', 'p99'],
      latencyByMinute(apiCalls).map((m) => {
        const s = syncByMinute.get(m.minute);
        return [
          m.minute,
          m.requests,
          m.noAnswer,
          fmt(m.p50),
          fmt(m.p99),
          s?.requests ?? 0,
          fmt(s?.p50 ?? null),
          fmt(s?.p99 ?? null),
        ];
      }),
    ),
    '',
    '## RSS per process (MB)',
    '',
    table(
      ['Process', 'Lives', 'First', 'Last', 'Peak', 'Slope MB/min (2nd half of longest life)', 'Over (s)', 'Judged'],
      r.rss.map((v) => [v.name, v.lives, v.firstMb, v.lastMb, v.maxMb, fmt(v.slope), v.spanS, v.judged ? 'yes' : 'no']),
    ),
    '',
    `Postgres connections, peak per minute: ${perMinuteMax(r.pgConnections)}.`,
    '',
    `Redis used_memory (MB), peak per minute: ${perMinuteMax(r.redisMb)}.`,
    '',
    '## What the load did',
    '',
    `Runs in Postgres by status: ${Object.entries(r.runStatuses)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
    `Webhook receiver answers: ${Object.entries(r.receiverAnswers)
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
    table(
      ['Action: answer', 'Count'],
      [...r.outcomes.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, v]),
    ),
    '',
  ];
  return out.join('\n');
}
