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
  let closed = false;
  let reading: Promise<void> | null = null;
  let again = false;
  let unsubscribe: (() => Promise<void>) | undefined;
  const send: SendEvent = (event, data) => {
    if (!closed) out.write(`id: ${++seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
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
      } while ((again || (o.more?.() ?? false)) && !closed);
      reading = null;
    })();
    return reading;
  };
  const poll = setInterval(() => void read(), o.pollMs ?? LIVE_POLL_MS);
  const keepAlive = setInterval(() => !closed && out.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(poll);
    clearInterval(keepAlive);
    void unsubscribe?.();
    out.end();
  };
  o.signal.addEventListener('abort', close, { once: true });
  out.on('close', close);
  if (o.channel)
    void o.deps.bus
      .subscribe(o.channel, (message) => {
        o.onMessage?.(message);
        void read();
      })
      .then(
        (unsub) => {
          unsubscribe = unsub;
          if (closed) void unsub();
        },
        (err) =>
          o.deps.log.warn(
            { err: (err as Error).message },
            `${o.what} is not live; reading Postgres every ${(o.pollMs ?? LIVE_POLL_MS) / 1000} s`,
          ),
      );
  void read();
  return out;
}
