import { createHash } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import type { Deps } from '../../shared/deps.js';
import type { Principal } from '../../shared/schemas/auth.js';
import type { InboxItem } from './schemas.js';

/** How often a stream reads Postgres besides the live channel: a change nobody published shows within this. */
const POLL_MS = 2000;
const KEEP_ALIVE_MS = 15_000;
/** The items a stream watches at most (newest first); an inbox larger than this is paged through GET /v1/inbox. */
const WATCHED = 500;

const channel = (accountId: string) => `inbox:${accountId}`;

/**
 * Tells the account's live streams that an item changed (assigned, claimed, answered, notified). A shortcut only:
 * each stream reads Postgres every POLL_MS anyway, so a lost publish costs latency, never a change.
 */
export function publishChange(deps: Pick<Deps, 'bus'>, accountId: string, itemId: string): void {
  deps.bus.publish(channel(accountId), { itemId }).catch(() => undefined);
}

const versionOf = (item: InboxItem) => createHash('sha256').update(JSON.stringify(item)).digest('base64url');

/**
 * An SSE stream of the account's inbox: `ready` with the items at the start, then `item.added`, `item.changed` (with
 * the item) and `item.removed` (its id) as they happen. Postgres is the record: the stream reads the open items
 * after every message on the account's channel (shared/redis bus) and every POLL_MS, and sends the difference, so
 * nothing is missed when a publish is lost. Ends when the client goes away.
 */
export function followInbox(
  deps: Deps,
  principal: Principal,
  list: (limit: number) => Promise<InboxItem[]>,
  signal: AbortSignal,
): Readable {
  const out = new PassThrough();
  let seq = 0;
  let closed = false;
  let known: Map<string, { version: string }> | null = null;
  let reading: Promise<void> | null = null;
  let again = false;
  let unsubscribe: (() => Promise<void>) | undefined;
  const send = (event: string, data: unknown) => {
    if (!closed) out.write(`id: ${++seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const read = () => {
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        try {
          const items = await list(WATCHED);
          if (closed) return;
          const now = new Map(items.map((i) => [i.itemId, { version: versionOf(i), item: i }]));
          if (!known) send('ready', { items });
          else {
            for (const [id, v] of now) {
              const was = known.get(id);
              if (!was) send('item.added', { itemId: id, item: v.item });
              else if (was.version !== v.version) send('item.changed', { itemId: id, item: v.item });
            }
            for (const id of known.keys()) if (!now.has(id)) send('item.removed', { itemId: id });
          }
          known = now;
        } catch (err) {
          deps.log.warn({ err: (err as Error).message }, 'inbox stream could not read the inbox; retrying');
        }
      } while (again && !closed);
      reading = null;
    })();
    return reading;
  };
  const poll = setInterval(() => void read(), POLL_MS);
  const keepAlive = setInterval(() => !closed && out.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(poll);
    clearInterval(keepAlive);
    void unsubscribe?.();
    out.end();
  };
  signal.addEventListener('abort', close, { once: true });
  out.on('close', close);
  void deps.bus
    .subscribe(channel(principal.accountId), () => void read())
    .then(
      (unsub) => {
        unsubscribe = unsub;
        if (closed) void unsub();
      },
      (err) => deps.log.warn({ err: (err as Error).message }, 'inbox stream is not live; reading Postgres every 2 s'),
    );
  void read();
  return out;
}
