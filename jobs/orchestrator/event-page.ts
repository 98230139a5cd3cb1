import type { Deps } from '../../shared/deps.js';
import { eventsAfter, eventTail } from '../../shared/db/runs.js';
import { findRun } from './run-queries.js';
import { RESTING_STATUSES } from './run-state.js';

/**
 * One page of a run's events, for a client that polls instead of following
 * a stream (an MCP tool, `Accept: application/json`): the events after
 * `after` in sequence, where to continue, and whether the run was resting
 * when the page was read (a resting run with no `more` has nothing to come
 * until it is resumed).
 */
export async function runEventsPage(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  runId: string,
  after: number,
  limit: number,
) {
  const run = await findRun(deps, accountId, runId);
  const events = await eventsAfter(deps.db, runId, after, limit);
  return {
    runId,
    status: run.status,
    resting: RESTING_STATUSES.includes(run.status),
    events: events.map(({ runId: _runId, ...event }) => event),
    nextAfter: events.at(-1)?.id ?? after,
    more: events.length === limit,
  };
}

/** The id of the run's last event (0 before any): a follower that starts here sees only what happens next. */
export async function lastEventId(deps: Pick<Deps, 'db'>, accountId: string, runId: string): Promise<number> {
  await findRun(deps, accountId, runId);
  return (await eventTail(deps.db, runId)).lastSeq;
}
