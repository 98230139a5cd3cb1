import type { Readable } from 'node:stream';
import type { Deps } from '../../shared/deps.js';
import { runHeads, type RunRow } from '../../shared/db/runs.js';
import { liveSse, type SendEvent } from '../../shared/http/live-sse.js';
import { accountRunsChannel } from './run-events.js';
import { ACTIVE_STATUSES } from './run-state.js';
import { runSummary } from './views.js';

/** The newest runs a stream reads each time (a new run is among them); older runs are read when named or moving. */
const NEWEST = 50;
/** Runs a stream remembers the status of; past this the resting ones it learnt of first are forgotten. */
const REMEMBERED = 1000;
/** Runs named on the channel or moving that one read takes at most (the rest wait for the next read). */
const NAMED_PER_READ = 200;

export const RUNS_STREAM_EVENTS = ['ready', 'run.created', 'run.changed'] as const;

const MOVING: readonly string[] = ACTIVE_STATUSES;

/**
 * An SSE stream of the account's runs: `ready` with the newest runs, then `run.created` (a run made after it) and
 * `run.changed` (a run whose status moved, with its previous status when the stream knew it). Postgres is the
 * record (liveSse): each read takes the runs the account's channel named (announce(), run-events.ts), the newest
 * runs and those it knows to be moving, and sends what differs from what it sent. A lost publish costs at most a
 * poll for a new or moving run; a resting run that an answer resumes is named by its own publish. Ends when the
 * client goes away.
 */
export function followAccountRuns(deps: Deps, accountId: string, signal: AbortSignal): Readable {
  /** runId → the status last sent; null until `ready`. */
  let known: Map<string, string> | null = null;
  /** The newest creation time `ready` or a `run.created` carried: a run unknown and newer than it is new. */
  let newestCreated = 0;
  const named = new Set<string>();
  const forgetSome = (map: Map<string, string>) => {
    for (const [id, status] of map) {
      if (map.size <= REMEMBERED) break;
      if (!MOVING.includes(status)) map.delete(id);
    }
  };
  const diff = (rows: RunRow[], send: SendEvent) => {
    const map = known!;
    for (const row of rows.sort((x, y) => x.created_at.getTime() - y.created_at.getTime())) {
      const was = map.get(row.id);
      if (was === row.status) continue;
      map.delete(row.id); // re-inserted last: the map's order is that of the latest news
      map.set(row.id, row.status);
      const run = runSummary(row);
      if (was === undefined && row.created_at.getTime() > newestCreated) {
        newestCreated = row.created_at.getTime();
        send('run.created', { runId: row.id, run });
      } else send('run.changed', { runId: row.id, run, previousStatus: was ?? null });
    }
    forgetSome(map);
  };
  return liveSse({
    deps,
    channel: accountRunsChannel(accountId),
    signal,
    what: 'runs stream',
    read: async (send) => {
      const moving = known ? [...known].filter(([, s]) => MOVING.includes(s)).map(([id]) => id) : [];
      const ids = [...new Set([...named, ...moving])].slice(0, NAMED_PER_READ);
      for (const id of ids) named.delete(id);
      const rows = await runHeads(deps.db, accountId, NEWEST, ids);
      if (known) diff(rows, send);
      else {
        const newest = rows.sort((x, y) => y.created_at.getTime() - x.created_at.getTime()).slice(0, NEWEST);
        known = new Map(newest.map((r) => [r.id, r.status]));
        newestCreated = Math.max(0, ...newest.map((r) => r.created_at.getTime()));
        send('ready', { runs: newest.map(runSummary) });
      }
    },
    onMessage: (message) => {
      try {
        const { runId } = JSON.parse(message) as { runId?: unknown };
        if (typeof runId === 'string' && named.size < REMEMBERED) named.add(runId);
      } catch {
        // not ours to read: the next read of Postgres covers it
      }
    },
    more: () => named.size > 0,
  });
}
