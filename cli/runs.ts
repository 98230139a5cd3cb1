import { type Command, Option } from 'commander';
import type { RunDetail, RunEvent, RunResult, RunSummary } from '../sdk/src/index.js';
import { UsageError } from './config.js';
import { clientFrom, EXIT, jsonOption, type Io } from './main.js';
import { describeEvent, GOOD_STATUSES } from './progress.js';

const formatOption = () =>
  new Option('--format <format>', 'event stream format').choices(['ndjson', 'sse']).default('ndjson');

/**
 * Prints a run's events as they come (steps starting and finishing, their messages, the final status and proof card)
 * and sets the exit code from how it ended.
 */
async function follow(io: Io, runId: string, opts: { format: 'ndjson' | 'sse'; json?: boolean; after?: number }) {
  const awp = clientFrom(io);
  let final: RunResult | undefined;
  const events = awp.runs.stream(runId, {
    format: opts.format,
    after: opts.after ?? 0,
    onReconnect: ({ lastEventId }) => io.err(`connection lost: resuming after event ${lastEventId}`),
  });
  for await (const ev of events) {
    if (ev.type === 'final') final = (ev as RunEvent & { result: RunResult }).result;
    if (opts.json) io.out(JSON.stringify(ev));
    else {
      const line = describeEvent(ev);
      if (line !== null) io.out(line);
    }
  }
  const status = final?.status ?? (await awp.runs.get(runId)).status;
  if (!GOOD_STATUSES.has(status)) io.exitCode = EXIT.runNotGood;
}

function summaryLine(r: RunSummary): string {
  const card = r.proofCardId ? `  ${r.proofCardId}` : '';
  return `${r.runId}  ${r.status.padEnd(16)}  ${r.route.join('>').padEnd(20)}  ${r.createdAt}${card}`;
}

function detailLines(run: RunDetail): string[] {
  const steps = run.steps as Array<{ domain?: string; status?: string; attempts?: number; durationMs?: number }>;
  const lines = [
    `run ${run.runId}: ${run.status}`,
    `request: ${run.request}`,
    `route: ${run.route.join(' > ')}`,
    ...steps.map(
      (s) =>
        `  step ${s.domain}: ${s.status} (attempts ${s.attempts ?? 0}${
          s.durationMs != null ? `, ${s.durationMs} ms` : ''
        })`,
    ),
  ];
  if (run.waitpoint) lines.push(`waiting: ${JSON.stringify(run.waitpoint)}`);
  if (run.error) lines.push(`error: ${run.error}`);
  const result = run.result as Partial<RunResult> | null;
  if (result?.proofCard) lines.push(`proof card: ${result.proofCard.cardId}`);
  return lines;
}

export function runCommands(program: Command, io: Io): void {
  program
    .command('run')
    .description('submit a run and follow it live until it rests')
    .argument('<request...>', 'what to do, in words')
    .option('--domains <list>', 'force the route: comma-separated domains (skips routing)')
    .option('--conversation <id>', 'a conversation to continue')
    .addOption(formatOption())
    .addOption(jsonOption())
    .action(async (words: string[], opts: { domains?: string; conversation?: string; format: 'ndjson' | 'sse' }) => {
      const awp = clientFrom(io);
      const request = words.join(' ').trim();
      if (!request) throw new UsageError('the request is empty');
      const body = {
        request,
        ...(opts.domains ? { domainRoute: opts.domains.split(',').map((d) => d.trim()) as never } : {}),
        ...(opts.conversation ? { conversationId: opts.conversation } : {}),
      };
      const accepted = await awp.runs.submit(body, { mode: 'async' });
      const json = (opts as { json?: boolean }).json;
      if (!json) io.out(`run ${accepted.runId} submitted`);
      await follow(io, accepted.runId, { format: opts.format, json });
    });

  const runs = program.command('runs').description('list, show, follow, cancel and resume runs');
  runs
    .command('ls')
    .description('list runs, newest first')
    .option('--status <status>', 'only runs with this status')
    .option('--domain <domain>', 'only runs through this domain')
    .option('--limit <n>', 'at most this many', (v) => positive(v, '--limit'), 20)
    .addOption(jsonOption())
    .action(async (opts: { status?: string; domain?: string; limit: number; json?: boolean }) => {
      const awp = clientFrom(io);
      const query = {
        limit: Math.min(opts.limit, 200),
        ...(opts.status ? { status: opts.status as never } : {}),
        ...(opts.domain ? { domain: opts.domain as never } : {}),
      };
      let n = 0;
      for await (const run of awp.runs.list(query)) {
        io.out(opts.json ? JSON.stringify(run) : summaryLine(run));
        if (++n >= opts.limit) break;
      }
      if (n === 0 && !opts.json) io.err('no runs');
    });
  runs
    .command('show')
    .description('a run: status, route, steps, waitpoint, proof card')
    .argument('<runId>')
    .addOption(jsonOption())
    .action(async (runId: string, opts: { json?: boolean }) => {
      const run = await clientFrom(io).runs.get(runId);
      if (opts.json) io.out(JSON.stringify(run, null, 2));
      else detailLines(run).forEach((l) => io.out(l));
    });
  runs
    .command('tail')
    .description("follow a run's events until it rests (resumes by itself after a dropped connection)")
    .argument('<runId>')
    .option('--after <id>', 'start after this event id', (v) => positive(v, '--after', true))
    .addOption(formatOption())
    .addOption(jsonOption())
    .action(async (runId: string, opts: { after?: number; format: 'ndjson' | 'sse'; json?: boolean }) => {
      await follow(io, runId, opts);
    });
  runs
    .command('cancel')
    .description('cancel a run; its running step is aborted')
    .argument('<runId>')
    .action(async (runId: string) => {
      const res = await clientFrom(io).runs.cancel(runId);
      io.out(`run ${res.runId} ${res.status}`);
    });
  runs
    .command('resume')
    .description("answer a waiting run's waitpoint, then follow it")
    .argument('<runId>')
    .option('--item <itemId>', 'the item chosen (a choice)')
    .option('--action <action>', 'the answer: buy, contact, proxyOutcome, settle, approve, reject, decline')
    .option('--approve', 'approve (an approval waitpoint)')
    .option('--reject', 'refuse (an approval waitpoint)')
    .option('--data <json>', 'data of the answer, as a JSON object')
    .option('--no-follow', 'answer without following the run')
    .addOption(formatOption())
    .action(async (runId: string, opts: ResumeOpts) => {
      const awp = clientFrom(io);
      if (opts.approve && opts.reject) throw new UsageError('--approve and --reject exclude each other');
      const body = {
        ...(opts.item ? { itemId: opts.item } : {}),
        ...(opts.action ? { action: opts.action as never } : {}),
        ...(opts.approve ? { approved: true } : opts.reject ? { approved: false } : {}),
        ...(opts.data ? { data: jsonObject(opts.data) } : {}),
      };
      // The new segment's events come after every event there is now: the follow starts after them.
      const after = opts.follow ? await lastEventId(io, runId) : 0;
      const resumed = await awp.runs.resume(runId, body);
      io.out(`run ${resumed.runId} resumed (segment ${resumed.segment})`);
      if (opts.follow) await follow(io, runId, { format: opts.format, after });
    });
}

interface ResumeOpts {
  item?: string;
  action?: string;
  approve?: boolean;
  reject?: boolean;
  data?: string;
  follow: boolean;
  format: 'ndjson' | 'sse';
}

/** The id of the run's last event (read a page at a time), so a follow after a resume shows only what is new. */
async function lastEventId(io: Io, runId: string): Promise<number> {
  const awp = clientFrom(io);
  for (let after = 0; ;) {
    const page = await awp.unwrap(
      awp.api.GET('/v1/runs/{runId}/events', {
        params: { path: { runId }, query: { after, limit: 500 } },
        headers: { accept: 'application/json' },
      }),
    );
    if (!page.more) return page.nextAfter;
    after = page.nextAfter;
  }
}

function positive(value: string, name: string, zero = false): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < (zero ? 0 : 1)) throw new UsageError(`${name} must be a whole number, got ${value}`);
  return n;
}

function jsonObject(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // the message below says what is expected
  }
  throw new UsageError(`--data must be a JSON object, got ${text}`);
}
