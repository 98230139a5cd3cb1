import type { Readable } from 'node:stream';
import type { Deps } from '../../shared/deps.js';
import { iso } from '../../shared/db/knex.js';
import { eventHeadsAfter } from '../../shared/db/outbox.js';
import { liveSse } from '../../shared/http/live-sse.js';
import { matchesType } from './logic.js';

export const EVENTS_STREAM_EVENTS = ['ready', 'event'] as const;

/**
 * How far back each read looks: an event's id is taken when its transaction starts, so one that commits late sorts
 * before events already sent. Ids sent within this window are remembered and not sent twice.
 */
const LOOKBACK_MS = 10_000;
/** Events one read takes at most: pages of PER_PAGE (a busy account's burst is read over a few polls). */
const PER_PAGE = 200;
const PAGES_PER_READ = 10;

/** The smallest event id made at `ms`: a UUIDv7 begins with its time in milliseconds (shared/ids.ts). */
export function eventIdFloor(ms: number): string {
  return `evt_${Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0')}${'0'.repeat(20)}`;
}

/**
 * An SSE stream of the account's outbox events from now on, their heads only (id, type, subject, time: the payload is
 * GET /v1/events/{eventId}), filtered by type patterns as subscriptions are (`case.*`, `*`). `ready` first, then
 * `event` frames. What it is for: a list that reloads when something of its kind happened. Postgres is the record,
 * read every few seconds (liveSse) with a look back over late commits; an event committed later than that window is
 * not sent (the list still reloads on the member's own actions and when the tab comes back).
 */
export function followEvents(deps: Deps, accountId: string, patterns: string[], signal: AbortSignal): Readable {
  let startedAt: number | null = null;
  /** Ids sent, with when, pruned past the look back. */
  const sent = new Map<string, number>();
  return liveSse({
    deps,
    signal,
    what: 'events stream',
    read: async (send) => {
      const now = Date.now();
      if (startedAt === null) {
        startedAt = now;
        send('ready', { at: new Date(now).toISOString() });
        return;
      }
      let after = eventIdFloor(Math.max(startedAt, now - LOOKBACK_MS));
      for (let page = 0; page < PAGES_PER_READ; page++) {
        const rows = await eventHeadsAfter(deps.db, accountId, after, PER_PAGE);
        for (const row of rows) {
          if (sent.has(row.id) || !matchesType(patterns, row.type)) continue;
          sent.set(row.id, now);
          send('event', { eventId: row.id, type: row.type, subject: row.subject, at: iso(row.created_at) });
        }
        if (rows.length < PER_PAGE) break;
        after = rows[rows.length - 1]!.id;
      }
      for (const [id, at] of sent) if (now - at > 2 * LOOKBACK_MS) sent.delete(id);
    },
  });
}
