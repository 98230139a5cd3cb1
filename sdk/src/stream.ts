import type { components } from './schema.js';
import { AwpError } from './errors.js';
import { sleep } from './retry.js';

/** A run event: `id` (1, 2, 3… per run, no gaps), `type`, `at` and the type's fields (docs/api/runs.md). */
export type RunEvent = components['schemas']['RunEventsPage']['events'][number];

export interface StreamOptions {
  /** `ndjson` (default) or `sse` (`text/event-stream`); the same events either way. */
  format?: 'ndjson' | 'sse';
  /** Start after this event id (as `Last-Event-ID` would). */
  after?: number;
  /** Reconnects in a row without a new event before giving up (default 5). */
  maxReconnects?: number;
  /** Told when a dropped connection is resumed. */
  onReconnect?: (info: { lastEventId: number; attempt: number; error: unknown }) => void;
  signal?: AbortSignal;
}

/** Opens one connection to the run's event stream, answering after `lastEventId` (0: from the start). */
export type OpenStream = (lastEventId: number, format: 'ndjson' | 'sse', signal?: AbortSignal) => Promise<Response>;

/**
 * Follows a run's events as an async iterator until its `final` event (or until the service ends the stream: the run
 * rests with nothing after). A connection that drops is opened again with `Last-Event-ID` set to the last event seen,
 * so nothing is lost; an event at or before it (a replay) is skipped, so nothing repeats.
 */
export async function* followEvents(open: OpenStream, options: StreamOptions = {}): AsyncGenerator<RunEvent> {
  const format = options.format ?? 'ndjson';
  const maxReconnects = options.maxReconnects ?? 5;
  let last = options.after ?? 0;
  let failures = 0;
  for (;;) {
    let progressed = false;
    try {
      const res = await open(last, format, options.signal);
      if (!res.ok) {
        const text = await res.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: the error says what came
        }
        throw AwpError.from(res, body);
      }
      if (!res.body) return;
      const frames = format === 'sse' ? sseEvents(res.body) : ndjsonEvents(res.body);
      for await (const ev of frames) {
        if (ev.id <= last) continue;
        last = ev.id;
        progressed = true;
        failures = 0;
        yield ev;
        if (ev.type === 'final') return;
      }
      return; // the service ended the stream: the run rests with nothing more to send
    } catch (error) {
      // The service's answer (404, 401…) or the caller's abort is final; a broken connection is not.
      if (error instanceof AwpError || options.signal?.aborted) throw error;
      if (!progressed) failures++;
      if (failures > maxReconnects) throw error;
      options.onReconnect?.({ lastEventId: last, attempt: failures, error });
      await sleep(failures === 0 ? 0 : Math.min(5000, 250 * 2 ** failures), options.signal);
    }
  }
}

async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let idx: number;
    while ((idx = buf.indexOf('\n')) >= 0) {
      yield buf.slice(0, idx).replace(/\r$/, '');
      buf = buf.slice(idx + 1);
    }
  }
  // A line cut off by a dropped connection is not an event: the resume sends it whole.
}

async function* ndjsonEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<RunEvent> {
  for await (const line of lines(body)) if (line.trim()) yield JSON.parse(line) as RunEvent;
}

/** SSE frames (`id:`, `event:`, `data:`, a blank line ends one; `:` lines keep the connection alive). */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<RunEvent> {
  let data: string[] = [];
  let id: string | undefined;
  for await (const line of lines(body)) {
    if (line === '') {
      if (data.length > 0) {
        const ev = JSON.parse(data.join('\n')) as RunEvent;
        yield id !== undefined ? { ...ev, id: Number(id) } : ev;
      }
      data = [];
      id = undefined;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
}
