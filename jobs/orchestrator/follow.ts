import { PassThrough, type Readable } from 'node:stream';
import type { Deps } from '../../shared/deps.js';
import { currentSegmentFinal, eventsAfter, eventTail, getRunById, type RunEvent } from '../../shared/db/runs.js';
import { RESTING_STATUSES } from './run-state.js';

export type StreamFormat = 'ndjson' | 'sse';

function frame(ev: RunEvent, format: StreamFormat): string {
  const { runId: _r, ...rest } = ev;
  return format === 'sse' ? `id: ${ev.id}\nevent: ${ev.type}\ndata: ${JSON.stringify(rest)}\n\n` : `${JSON.stringify(rest)}\n`;
}

/**
 * Follows a run's events: subscribes to the live channel first, then replays
 * the backlog after `after` from Postgres, then forwards live events,
 * dropping any seq already sent, so nothing is lost or repeated. Ends after
 * the run rests (a `final` event, or a resting status when nothing is live).
 */
export function followRun(deps: Deps, runId: string, after: number, format: StreamFormat, signal: AbortSignal): Readable {
  const out = new PassThrough();
  let last = after;
  let closed = false;
  let unsubscribe: (() => Promise<void>) | undefined;
  const queue: RunEvent[] = [];
  let replaying = true;
  const close = () => {
    if (closed) return;
    closed = true;
    void unsubscribe?.();
    clearInterval(keepAlive);
    out.end();
  };
  const send = (ev: RunEvent) => {
    if (closed || ev.id <= last) return;
    last = ev.id;
    out.write(frame(ev, format));
    if (ev.type === 'final') close();
  };
  // Comment lines keep proxies from timing out a quiet SSE stream.
  const keepAlive = setInterval(() => { if (format === 'sse' && !closed) out.write(': keep-alive\n\n'); }, 15_000);
  signal.addEventListener('abort', close, { once: true });
  out.on('close', close);

  void (async () => {
    unsubscribe = await deps.bus.subscribe(`run:${runId}`, (msg) => {
      const ev = JSON.parse(msg) as RunEvent;
      if (replaying) queue.push(ev);
      else send(ev);
    });
    for (;;) {
      const page = await eventsAfter(deps.db, runId, last, 500);
      page.forEach(send);
      if (page.length < 500 || closed) break;
    }
    replaying = false;
    queue.sort((a, b) => a.id - b.id).forEach(send);
    if (closed) return;
    const run = await getRunById(deps.db, runId);
    // A resting run whose final event is already behind `after` has nothing more to say.
    if (run && RESTING_STATUSES.includes(run.status)) {
      const tail = await eventTail(deps.db, runId);
      if (tail.lastSeq <= last && tail.lastFinalSeq !== null && tail.lastFinalSeq <= last) close();
    }
  })().catch((err) => {
    deps.log.warn({ err: (err as Error).message, runId }, 'run stream failed');
    close();
  });
  return out;
}

/**
 * Resolves with the run's result once it rests (the `final` event of its
 * current segment carries it), or with null after `timeoutMs`.
 */
export async function waitForRest(deps: Deps, runId: string, timeoutMs: number): Promise<unknown | null> {
  let resolveFn!: (v: unknown | null) => void;
  const done = new Promise<unknown | null>((r) => (resolveFn = r));
  const unsubscribe = await deps.bus.subscribe(`run:${runId}`, (msg) => {
    const ev = JSON.parse(msg) as RunEvent;
    if (ev.type === 'final') resolveFn(ev.result);
  });
  const timer = setTimeout(() => resolveFn(null), timeoutMs);
  try {
    // The run may have rested before the subscription was in place.
    const final = await currentSegmentFinal(deps.db, runId);
    if (final) return final.result;
    return await done;
  } finally {
    clearTimeout(timer);
    await unsubscribe();
  }
}
