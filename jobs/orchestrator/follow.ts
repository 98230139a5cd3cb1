import { PassThrough, type Readable } from 'node:stream';
import type { Deps } from '../../shared/deps.js';
import { currentSegmentFinal, eventsAfter, eventTail, type RunEvent } from '../../shared/db/runs.js';
import { RESTING_STATUSES } from './run-state.js';
import { liveStream } from '../../shared/http/live-sse.js';

export type StreamFormat = 'ndjson' | 'sse';

/** How often a follower reads Postgres besides the live channel: a missed publish costs at most this long. */
const POLL_MS = 1000;

function frame(ev: RunEvent, format: StreamFormat): string {
  const { runId: _r, ...rest } = ev;
  return format === 'sse'
    ? `id: ${ev.id}\nevent: ${ev.type}\ndata: ${JSON.stringify(rest)}\n\n`
    : `${JSON.stringify(rest)}\n`;
}

/** A run channel's message: the events one write appended, in order (see announce in run-events.ts). */
function liveEvents(msg: string): RunEvent[] {
  const parsed = JSON.parse(msg) as RunEvent | RunEvent[];
  return Array.isArray(parsed) ? parsed : [parsed];
}

/**
 * Follows a run's events in sequence order, with none lost or repeated.
 * Postgres is the record: live events from Redis are a shortcut, sent only
 * when they are the next in sequence; a gap (publishers reordered, a publish
 * lost, a reconnect) is filled from Postgres at once, and Postgres is read
 * every second anyway. Ends after the run rests (its `final` event, or a
 * resting run with nothing after `after`).
 */
export function followRun(
  deps: Deps,
  runId: string,
  after: number,
  format: StreamFormat,
  signal: AbortSignal,
): Readable {
  const out = new PassThrough();
  let last = after;
  let reading: Promise<void> | null = null;
  // A live event is sent only as the next in sequence; one read from Postgres (the record) may follow a gap that
  // retention left (a finished run's trimmed events), so it needs only to be newer.
  const send = (ev: RunEvent, fromRecord = false) => {
    if (stream.closed() || (fromRecord ? ev.id <= last : ev.id !== last + 1)) return;
    last = ev.id;
    out.write(frame(ev, format));
    if (ev.type === 'final') stream.close();
  };
  // A client that reads slower than the run talks gets nothing more queued until it has drained (live events wait for
  // the next read of Postgres, which waits too), so a follower holds about one page of events, not the whole run.
  const behind = () => out.writableNeedDrain;
  const drained = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        out.off('drain', done);
        out.off('close', done);
        resolve();
      };
      out.on('drain', done);
      out.on('close', done);
    });
  // One reader at a time; it drains everything after `last` and then checks whether the run has rested.
  const catchUp = () => {
    reading ??= (async () => {
      try {
        for (;;) {
          while (behind() && !stream.closed()) await drained();
          if (stream.closed()) break;
          const page = await eventsAfter(deps.db, runId, last, 500);
          for (const ev of page) send(ev, true);
          if (page.length < 500 || stream.closed()) break;
        }
        if (!stream.closed()) await closeIfRested();
      } catch (err) {
        deps.log.warn({ err: (err as Error).message, runId }, 'run stream could not read events; retrying');
      } finally {
        reading = null;
      }
    })();
    return reading;
  };
  const closeIfRested = async () => {
    const tail = await eventTail(deps.db, runId);
    if (!tail.status || !RESTING_STATUSES.includes(tail.status)) return;
    if (tail.lastSeq <= last && tail.lastFinalSeq !== null && tail.lastFinalSeq <= last) stream.close();
  };
  const stream = liveStream({
    out,
    deps,
    signal,
    pollMs: POLL_MS,
    poll: () => void catchUp(),
    // Comment lines keep proxies from timing out a quiet SSE stream; NDJSON has no comment syntax, so it relies on the
    // events.
    keepAlive: () => format === 'sse' && !behind() && out.write(': keep-alive\n\n'),
    channel: `run:${runId}`,
    onMessage: (msg) => {
      if (behind()) return void catchUp();
      for (const ev of liveEvents(msg)) {
        if (ev.id === last + 1) send(ev);
        else if (ev.id > last + 1) return void catchUp();
      }
    },
    what: `run ${runId}'s stream`,
  });
  void catchUp();
  return out;
}

/**
 * Resolves with the result of segment `minSegment` or a later one once it
 * rests (from its `final` event), or with null after `timeoutMs` or once
 * `signal` aborts (the client that waits went away: its channel and its
 * reads every second end with it, not `timeoutMs` later). The timer
 * starts first (a Redis that does not answer cannot hold the caller), the
 * live channel is a shortcut, and Postgres is read every second as well;
 * the first read waits for the subscription (or its failure), so a run that
 * rests quickly costs one read, not two.
 */
export async function waitForRest(
  deps: Deps,
  runId: string,
  timeoutMs: number,
  minSegment = 0,
  signal?: AbortSignal,
): Promise<unknown | null> {
  if (signal?.aborted) return null;
  let settle!: (v: unknown | null) => void;
  const done = new Promise<unknown | null>((r) => (settle = r));
  const timer = setTimeout(() => settle(null), timeoutMs);
  const leave = () => settle(null);
  signal?.addEventListener('abort', leave, { once: true });
  const check = async () => {
    const final = await currentSegmentFinal(deps.db, runId).catch(() => null);
    if (final && final.segment >= minSegment) settle(final.result);
  };
  const poll = setInterval(() => void check(), POLL_MS);
  let finished = false;
  let unsubscribe: (() => Promise<void>) | undefined;
  void deps.bus
    .subscribe(`run:${runId}`, (msg) => {
      // Only a final answers; the others (a step's start and end) are not even parsed. JSON.stringify writes no spaces,
      // so a final always matches.
      if (!msg.includes('"type":"final"')) return;
      for (const ev of liveEvents(msg) as Array<RunEvent & { segment?: number; result?: unknown }>) {
        if (ev.type === 'final' && (ev.segment ?? -1) >= minSegment) settle(ev.result);
      }
    })
    .then(
      (unsub) => {
        unsubscribe = unsub;
        if (finished)
          void unsub(); // answered while SUBSCRIBE was in flight
        else void check(); // the run may have rested before the subscription was in place
      },
      () => void check(),
    );
  try {
    return await done;
  } finally {
    finished = true;
    clearTimeout(timer);
    clearInterval(poll);
    signal?.removeEventListener('abort', leave);
    await unsubscribe?.();
  }
}
