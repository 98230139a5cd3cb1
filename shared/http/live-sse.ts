import { PassThrough, type Readable } from 'node:stream';
import type { Deps } from '../deps.js';

/** How often a live list reads Postgres besides its channel: a change nobody published shows within this. */
export const LIVE_POLL_MS = 2000;
const KEEP_ALIVE_MS = 15_000;

export type SendEvent = (event: string, data: unknown) => void;

export interface LiveSse {
  deps: Pick<Deps, 'bus' | 'log'>;
  /** The account's channel on the Redis bus whose messages mean "read again now"; without one, the poll alone. */
  channel?: string;
  signal: AbortSignal;
  /** What the stream follows, for its log lines ("inbox stream"). */
  what: string;
  /** One read of the record (Postgres), sending what differs from what was sent. */
  read: (send: SendEvent) => Promise<void>;
  /** A message on the channel, seen before the read it starts (to note what it names). */
  onMessage?: (message: string) => void;
  /** After a read: whether to read again at once (what messages named is not all read yet). */
  more?: () => boolean;
  pollMs?: number;
}

/**
 * A Server-Sent Events list kept live: Postgres is the record, read at the start, after every message on the
 * account's channel and every `pollMs`; the bus is a shortcut only, so a lost publish costs latency, never a change.
 * Reads never overlap: one asked for during a read runs right after it. Events carry increasing ids; a comment line
 * keeps idle connections open. Ends when the client goes away.
 */
export function liveSse(o: LiveSse): Readable {
  const out = new PassThrough();
  let seq = 0;
  let reading: Promise<void> | null = null;
  let again = false;
  const send: SendEvent = (event, data) => {
    if (!stream.closed()) out.write(`id: ${++seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const read = (): Promise<void> => {
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        try {
          await o.read(send);
        } catch (err) {
          o.deps.log.warn({ err: (err as Error).message }, `${o.what} could not read Postgres; retrying`);
        }
      } while ((again || (o.more?.() ?? false)) && !stream.closed());
      reading = null;
    })();
    return reading;
  };
  const stream = liveStream({
    out,
    deps: o.deps,
    signal: o.signal,
    pollMs: o.pollMs ?? LIVE_POLL_MS,
    poll: () => void read(),
    keepAlive: () => out.write(': keep-alive\n\n'),
    channel: o.channel,
    onMessage: (message) => {
      o.onMessage?.(message);
      void read();
    },
    what: o.what,
  });
  void read();
  return out;
}

export interface LiveStream {
  out: PassThrough;
  deps: Pick<Deps, 'bus' | 'log'>;
  signal: AbortSignal;
  pollMs: number;
  /** Reads the record again (every `pollMs`). */
  poll: () => void;
  /** Writes a keep-alive when the stream has been quiet (every KEEP_ALIVE_MS, while open). */
  keepAlive: () => void;
  /** The bus channel whose messages are a shortcut to the record; without one, the poll alone. */
  channel?: string;
  onMessage: (message: string) => void;
  /** What the stream follows, for its log line when the channel cannot be joined. */
  what: string;
}

/**
 * What every live stream shares: it polls and keeps alive while open, joins its channel (and leaves it even when the
 * client went away while SUBSCRIBE was in flight), and closes once, when the client goes away or its owner says so.
 */
export function liveStream(o: LiveStream): { closed: () => boolean; close: () => void } {
  let closed = false;
  let unsubscribe: (() => Promise<void>) | undefined;
  const poll = setInterval(o.poll, o.pollMs);
  const keepAlive = setInterval(() => !closed && o.keepAlive(), KEEP_ALIVE_MS);
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(poll);
    clearInterval(keepAlive);
    void unsubscribe?.();
    o.out.end();
  };
  o.signal.addEventListener('abort', close, { once: true });
  o.out.on('close', close);
  if (o.channel)
    void o.deps.bus.subscribe(o.channel, o.onMessage).then(
      (unsub) => {
        unsubscribe = unsub;
        if (closed) void unsub();
      },
      (err) =>
        o.deps.log.warn(
          { err: (err as Error).message },
          `${o.what} is not live; reading Postgres every ${o.pollMs / 1000} s`,
        ),
    );
  return { closed: () => closed, close };
}
