import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Deps } from '../../shared/deps.js';
import { liveSse } from '../../shared/http/live-sse.js';
import type { Principal } from '../../shared/schemas/auth.js';
import type { InboxItem } from './schemas.js';

/** The items a stream watches at most (newest first); an inbox larger than this is paged through GET /v1/inbox. */
const WATCHED = 500;

const channel = (accountId: string) => `inbox:${accountId}`;

/**
 * Tells the account's live streams that an item changed (assigned, claimed, answered, notified). A shortcut only:
 * each stream reads Postgres every few seconds anyway, so a lost publish costs latency, never a change.
 */
export function publishChange(deps: Pick<Deps, 'bus'>, accountId: string, itemId: string): void {
  deps.bus.publish(channel(accountId), { itemId }).catch(() => undefined);
}

const versionOf = (item: InboxItem) => createHash('sha256').update(JSON.stringify(item)).digest('base64url');

/**
 * An SSE stream of the account's inbox: `ready` with the items at the start, then `item.added`, `item.changed` (with
 * the item) and `item.removed` (its id) as they happen: the open items read from Postgres (liveSse: after every
 * message on the account's channel and every few seconds), and the difference sent.
 */
export function followInbox(
  deps: Deps,
  principal: Principal,
  list: (limit: number) => Promise<InboxItem[]>,
  signal: AbortSignal,
): Readable {
  let known: Map<string, { version: string }> | null = null;
  return liveSse({
    deps,
    channel: channel(principal.accountId),
    signal,
    what: 'inbox stream',
    read: async (send) => {
      const items = await list(WATCHED);
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
    },
  });
}
